import { createPlantStoreApp, type PlantStoreApp } from '@plant-store/core';

/** The Worker's bindings: the token callers present, as a secret (`wrangler secret put PLANT_STORE_TOKEN`). */
interface Env {
  readonly PLANT_STORE_TOKEN: string;
}

// Built on the first request, when the bindings are known. Its memory store lives in this isolate
// only: other isolates have their own, and it is gone when the isolate is. Pass a store to persist.
let app: PlantStoreApp | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    app ??= createPlantStoreApp({ tokens: [env.PLANT_STORE_TOKEN] });
    return app.fetch(request);
  },
};
