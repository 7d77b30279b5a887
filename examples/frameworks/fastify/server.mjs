import Fastify from 'fastify';
import { createPlantStoreListener } from '@plant-store/server';
import { plantStorePlugin } from '@plant-store/server/fastify';

// The token callers present, from the environment: never written in the code.
const token = process.env.PLANT_STORE_TOKEN;
if (!token) throw new Error('set PLANT_STORE_TOKEN');
const port = Number(process.env.PORT ?? 3000);

const app = Fastify();
// Its own context: bodies under /plant-api are left to the listener, parsers elsewhere are untouched.
await app.register(plantStorePlugin, { prefix: '/plant-api', listener: createPlantStoreListener({ tokens: [token] }) });

// The app's own routes, with Fastify's JSON parser.
app.post('/notes', async (request) => ({ received: request.body }));

await app.listen({ host: '127.0.0.1', port });
console.log(`listening on http://127.0.0.1:${port}`);
