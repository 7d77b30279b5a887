import { createPlantStoreApp } from '@plant-store/core';

// The token callers present, from the environment: never written in the code.
const token = Deno.env.get('PLANT_STORE_TOKEN');
if (!token) throw new Error('set PLANT_STORE_TOKEN');
const app = createPlantStoreApp({ tokens: [token] });

const port = Number(Deno.env.get('PORT') ?? 3000);
const onListen = (at: Deno.NetAddr) => console.log(`Plant Store listening on http://${at.hostname}:${at.port}/`);
Deno.serve({ hostname: '127.0.0.1', port, onListen }, app.fetch);
