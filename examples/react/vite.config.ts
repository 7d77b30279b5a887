// `npx vite examples/react` serves the app with the Plant Store mocked in the browser (MSW's service worker running
// @plant-store/msw); with VITE_PLANT_STORE_URL set, it proxies /api to that server instead (README.md).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import react from '@vitejs/plugin-react';
import { defineConfig, loadEnv, type Plugin } from 'vite';

/** Serves MSW's worker script at the site root in development, the file `npx msw init public/` would copy. */
function mockServiceWorker(): Plugin {
  const script = createRequire(import.meta.url).resolve('msw/mockServiceWorker.js');
  return {
    name: 'plant-store:mock-service-worker',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use('/mockServiceWorker.js', (_request, response) => {
        response.setHeader('content-type', 'text/javascript');
        response.end(readFileSync(script));
      });
    },
  };
}

export default defineConfig(({ mode }) => {
  const target = loadEnv(mode, import.meta.dirname, 'VITE_').VITE_PLANT_STORE_URL;
  return {
    root: import.meta.dirname,
    plugins: [react(), mockServiceWorker()],
    build: { target: 'es2022' },
    // The reference server started with `--base-path /api` answers POST /api/plants; same origin, no CORS.
    server: target ? { proxy: { '/api': { target, changeOrigin: true } } } : {},
  };
});
