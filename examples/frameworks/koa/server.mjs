import Koa from 'koa';
import { createPlantStoreListener } from '@plant-store/server';

// The token callers present, from the environment: never written in the code.
const token = process.env.PLANT_STORE_TOKEN;
if (!token) throw new Error('set PLANT_STORE_TOKEN');
const port = Number(process.env.PORT ?? 3000);

const plants = createPlantStoreListener({ tokens: [token], basePath: '/plant-api' });
const app = new Koa();
// First, before any body parser: under /plant-api the listener answers on the raw request and
// Koa leaves the response alone.
app.use(async (ctx, next) => {
  if (ctx.path !== '/plant-api' && !ctx.path.startsWith('/plant-api/')) return next();
  ctx.respond = false;
  plants(ctx.req, ctx.res);
});

// The app's own routes.
app.use(async (ctx) => {
  if (ctx.method === 'POST' && ctx.path === '/notes') {
    let text = '';
    for await (const chunk of ctx.req) text += chunk;
    ctx.body = { received: JSON.parse(text) };
    return;
  }
  ctx.status = 404;
});

app.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
