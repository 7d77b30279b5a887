import { createPlantStoreApp } from '@plant-store/core';

// The token callers present, from the environment: never written in the code.
const token = Bun.env.PLANT_STORE_TOKEN;
if (!token) throw new Error('set PLANT_STORE_TOKEN');
const app = createPlantStoreApp({ tokens: [token] });

const server = Bun.serve({ hostname: '127.0.0.1', port: Number(Bun.env.PORT ?? 3000), fetch: app.fetch });
console.log(`Plant Store listening on ${server.url}`);
