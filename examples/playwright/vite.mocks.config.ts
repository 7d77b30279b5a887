// The app's own mocks module (src/mocks.ts: setupWorker with @plant-store/msw), built beside the
// production build as dist/e2e/mocks.js so an end-to-end test can start it in the page. The production
// bundle itself holds no mocks.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    outDir: 'dist/e2e',
    emptyOutDir: false,
    lib: { entry: 'src/mocks.ts', formats: ['es'], fileName: 'mocks' },
  },
});
