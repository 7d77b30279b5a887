// The fastify 5 baseline: the plant store as a fastify user would write it, with the body judged
// by route JSON schema (NewPlant from openapi.yaml, compiled by fastify's Ajv) and errors mapped to
// the spec's Error body. It does the same work as far as fastify allows. What it cannot do without
// leaving its own path (a custom body parser doing the raw-text work by hand):
// - exact int64: the schema sees the id after JSON.parse, so 2^53+1 arrives as 2^53 and is accepted,
//   and ids beyond 2^53 that differ collide in the store;
// - `1.00000000000000000001` is parsed as 1 and accepted as an integer;
// - invalid UTF-8 is replaced (U+FFFD), not refused with 40001.
// With `log` and `metrics` (the production part) it is what an operator of fastify would run: its
// pino logger writing one line per request with the fields our `--log` writes, and fastify-metrics
// (prom-client) on `/metrics`: process metrics and a request duration histogram by status.
// With `otel` (the tracing part) it is traced as the @fastify/otel README shows with the Node SDK:
// the SDK started first, configured by the same `OTEL_*` variables as `plant-store-server --otel`,
// with FastifyOtelInstrumentation registering its plugin on every fastify instance created after it
// (a `request` span per request, a span per hook and one for the handler, by its defaults).
import Fastify from 'fastify';
import { randomUUID, timingSafeEqual } from 'node:crypto';

const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:/]{1,128}$/;
const CHALLENGE = 'Bearer realm="plant-store"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="plant-store", error="invalid_token"';

// openapi.yaml's NewPlant (Plant allOf { id }), flattened for fastify's validator.
const newPlantSchema = {
  type: 'object',
  required: ['id', 'name'],
  properties: {
    // biome-ignore lint/correctness/noPrecisionLoss: openapi.yaml's int64 bounds, as fastify's validator sees them (doubles)
    id: { type: 'integer', minimum: -9223372036854775808, maximum: 9223372036854775807 },
    name: { type: 'string' },
    tag: { type: 'string' },
  },
};
const plantSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, tag: { type: 'string' } },
};
const errorSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'integer' }, message: { type: 'string' } },
};

class ApiError extends Error {
  constructor(status, code, message, headers) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * Starts the fastify baseline server. With `insert` (postgres-table.mjs), plants are stored through
 * it instead of the Map: it resolves to undefined for a new plant, else to the stored one.
 * @param {{ port?: number, host?: string, tokens: string[], bodyLimit?: number, log?: boolean,
 *   metrics?: boolean, otel?: boolean,
 *   insert?(id: number, name: string, tag?: string): Promise<{ name: string, tag?: string } | undefined> }} options
 * @returns {Promise<{ url: string, close(): Promise<void> }>}
 */
export async function startFastifyServer({
  port = 0,
  host = '127.0.0.1',
  tokens,
  bodyLimit = 1024 * 1024,
  insert,
  log = false,
  metrics = false,
  otel = false,
}) {
  // Before the instance: the instrumentation hooks fastify's creation of it.
  const tracing = otel ? await startTracing() : undefined;
  const accepted = tokens.map((token) => Buffer.from(token, 'utf8'));
  const plants = new Map();
  const app = Fastify({
    logger: log ? await productionLogger() : false,
    // Its own two lines per request (incoming, completed) give way to one line like ours (below).
    disableRequestLogging: true,
    bodyLimit,
    // Ajv's defaults would coerce "42" into 42 and strip nothing we rely on; the contract says a
    // string id is a 400, so coercion is off.
    ajv: { customOptions: { coerceTypes: false } },
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
  });

  if (metrics) {
    const { default: metricsPlugin } = await import('fastify-metrics');
    await app.register(metricsPlugin, {
      endpoint: '/metrics',
      // Ours keeps a histogram, not a summary (whose quantiles cost far more per request).
      routeMetrics: {
        enabled: { histogram: true, summary: false },
        overrides: {
          histogram: { buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] },
        },
      },
    });
  }
  if (log) {
    app.addHook('onResponse', async (request, reply) => {
      app.log.info(
        {
          requestId: reply.getHeader('x-request-id'),
          method: request.method,
          path: request.url.split('?', 1)[0],
          status: reply.statusCode,
          durationMs: Math.round(reply.elapsedTime * 100) / 100,
        },
        'request',
      );
    });
  }

  function tokenAccepted(token) {
    const given = Buffer.from(token, 'utf8');
    let ok = false;
    for (const candidate of accepted) {
      if (candidate.length === given.length && timingSafeEqual(candidate, given)) ok = true;
    }
    return ok;
  }

  app.addHook('onRequest', async (request, reply) => {
    const given = request.headers['x-request-id'];
    reply.header('x-request-id', typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID());
    if (request.routeOptions.url !== '/plants' || request.method !== 'POST') return;
    const authorization = request.headers.authorization;
    const match = authorization === undefined ? null : /^bearer +(\S+) *$/i.exec(authorization);
    if (match === null) {
      throw new ApiError(401, 40101, 'missing credentials: send Authorization: Bearer <token>', {
        'www-authenticate': CHALLENGE,
      });
    }
    if (!tokenAccepted(match[1])) {
      throw new ApiError(401, 40102, 'the bearer token is not accepted', {
        'www-authenticate': INVALID_TOKEN_CHALLENGE,
      });
    }
  });

  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof ApiError) {
      if (error.headers) reply.headers(error.headers);
      return reply.code(error.status).send({ error: error.code, message: error.message });
    }
    if (error.validation) {
      const first = error.validation[0];
      const field = first?.instancePath?.slice(1) || first?.params?.missingProperty || 'body';
      return reply.code(400).send({ error: 40002, message: `${field} ${first?.message ?? 'is invalid'}` });
    }
    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.code(415).send({ error: 41501, message: 'the body must be application/json' });
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.code(413).send({ error: 41301, message: `the body must be at most ${bodyLimit} bytes` });
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return reply.code(400).send({ error: 40001, message: 'the body is not valid JSON' });
    }
    if (error.statusCode === 400) return reply.code(400).send({ error: 40001, message: 'the body is not valid JSON' });
    return reply.code(500).send({ error: 50001, message: 'an unexpected fault' });
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ error: 40401, message: 'no such path: the only operation is POST /plants' });
  });

  app.route({
    method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    url: '/plants',
    handler: async (request, reply) => {
      reply.header('allow', 'POST');
      return reply
        .code(405)
        .send({ error: 40501, message: `method ${request.method} is not allowed on /plants; use POST` });
    },
  });

  app.post(
    '/plants',
    { schema: { body: newPlantSchema, response: { 200: plantSchema, 400: errorSchema } } },
    async (request, reply) => {
      const { id, name, tag } = request.body;
      let existing;
      if (insert !== undefined) {
        try {
          existing = await insert(id, name, tag);
        } catch {
          throw new ApiError(503, 50301, 'the store is unavailable; retry', { 'retry-after': '1' });
        }
      } else {
        existing = plants.get(id);
        if (existing === undefined) plants.set(id, tag === undefined ? { name } : { name, tag });
      }
      if (existing !== undefined && (existing.name !== name || existing.tag !== tag)) {
        return reply
          .code(400)
          .send({ error: 40003, message: `id ${id} is stored already with a different name or tag` });
      }
      return tag === undefined ? { name } : { name, tag };
    },
  );

  await app.listen({ port, host });
  const address = app.server.address();
  return {
    url: `http://${address.address}:${address.port}`,
    async close() {
      await app.close();
      // Exports the spans still queued, as the CLI does at exit.
      await tracing?.shutdown();
    },
  };
}

/**
 * The OpenTelemetry Node SDK set up as `plant-store-server --otel` sets it up (traces only unless
 * the variables ask for more; the exporter, protocol, sampler and batching from `OTEL_*`), with
 * @fastify/otel's instrumentation as its one instrumentation.
 */
async function startTracing() {
  const [{ NodeSDK }, { FastifyOtelInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@fastify/otel'),
  ]);
  process.env.OTEL_METRICS_EXPORTER ??= 'none';
  process.env.OTEL_LOGS_EXPORTER ??= 'none';
  const sdk = new NodeSDK({
    ...(process.env.OTEL_SERVICE_NAME === undefined && { serviceName: 'fastify-baseline' }),
    instrumentations: [new FastifyOtelInstrumentation({ registerOnInitialization: true })],
  });
  sdk.start();
  return sdk;
}

/** fastify's pino logger as ours is set up: JSON lines on stderr, written asynchronously, ISO time. */
async function productionLogger() {
  const { default: pino } = await import('pino');
  return {
    level: 'info',
    messageKey: 'message',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    stream: pino.destination({ dest: 2, sync: false }),
  };
}
