import { createPlantStoreApp } from '@plant-store/core';

// Made on the first request, from the server's environment (`next build` loads this module too,
// without the token). One app, so one memory store, for the life of the `next start` process.
let app;

/** Every method goes to the core, which answers POST /plant-api/plants and its Errors for the rest. */
function plantStore(request) {
  if (app === undefined) {
    // The token callers present, from the environment: never written in the code.
    const token = process.env.PLANT_STORE_TOKEN;
    if (!token) throw new Error('set PLANT_STORE_TOKEN');
    app = createPlantStoreApp({ tokens: [token], basePath: '/plant-api' });
  }
  return app.fetch(request);
}

export {
  plantStore as DELETE,
  plantStore as GET,
  plantStore as OPTIONS,
  plantStore as PATCH,
  plantStore as POST,
  plantStore as PUT,
};
