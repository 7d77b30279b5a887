import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createPlantStoreApp } from '@plant-store/core';

// The token callers present, from the environment: never written in the code.
const token = process.env.PLANT_STORE_TOKEN;
if (!token) throw new Error('set PLANT_STORE_TOKEN');
const port = Number(process.env.PORT ?? 3000);

const plants = createPlantStoreApp({ tokens: [token] });
const app = new Hono();
// Hono hands the core's fetch the request with the mount path taken off: it sees /plants.
app.mount('/plant-api', plants.fetch);

// The app's own routes.
app.post('/notes', async (c) => c.json({ received: await c.req.json() }));

serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => console.log(`listening on http://127.0.0.1:${port}`));
