// Part "production": the server as operators run it, head to head (parts/head-to-head.mjs) with
// itself bare and with fastify set up the same way. The real `plant-store-server` in memory:
// bare; `--log` (level info, stderr to a file) and `--ops-port 0` (its /metrics scraped every
// second, as Prometheus would) together and each alone; RS256 JWT bearer tokens (`--jwks` on a key
// the part makes, the same token on every request of a connection, as a client sends it) with both.
// The peer: fastify 5 with its pino logger writing one line per request and fastify-metrics.
// Unique creates at the run's connections; req/s, p99, CPU and log bytes per request.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKLOADS } from '../lib/contenders.mjs';
import { startLoader } from '../lib/proc.mjs';
import { scrapeEverySecond } from '../lib/scrape.mjs';
import { errorText, fmt, notMeasured } from '../lib/report.mjs';
import { startServer } from '../lib/serve.mjs';
import { pairReport, pairTargets, runPairBlocks } from './head-to-head.mjs';

export const name = 'production';
const TITLE = '### Production: logs, metrics and JWTs on';
const UNIQUE = WORKLOADS.find((workload) => workload.id === 'unique');
const OPS = ['--ops-port', '0'];
const LOG = ['--log', '--log-level', 'info'];
const JWT = { issuer: 'https://issuer.bench.invalid/', audience: 'plant-store-bench' };

/** The contenders; `jwt` ones take the part's JWT instead of the run's static token. */
const CONTENDERS = [
  { id: 'bare', label: 'ours bare', kind: 'cli', args: [] },
  { id: 'logs-metrics', label: 'ours `--log --ops-port`', kind: 'cli', args: [...LOG, ...OPS], log: true },
  { id: 'logs', label: 'ours `--log`', kind: 'cli', args: LOG, log: true },
  { id: 'metrics', label: 'ours `--ops-port`', kind: 'cli', args: OPS },
  { id: 'jwt', label: 'ours RS256 JWTs `--log --ops-port`', kind: 'cli', args: [...LOG, ...OPS], log: true, jwt: true },
  {
    id: 'fastify',
    label: 'fastify 5 + pino request log + fastify-metrics',
    kind: 'fastify',
    options: { log: true, metrics: true },
    log: true,
  },
];
const PAIRS = [
  { a: 'logs-metrics', b: 'bare', limit: 0.9 },
  { a: 'logs', b: 'bare' },
  { a: 'metrics', b: 'bare' },
  { a: 'jwt', b: 'bare', limit: 0.85 },
  { a: 'logs-metrics', b: 'fastify', limit: 1.1 },
];
const byId = new Map(CONTENDERS.map((c) => [c.id, c]));

/** An RSA key, its JWKS in a file, and a token it signed (jose), valid for longer than the part runs. */
async function makeJwt(tmp) {
  const { SignJWT, exportJWK, generateKeyPair } = await import('jose');
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
  const jwksPath = join(tmp, 'jwks.json');
  writeFileSync(jwksPath, JSON.stringify({ keys: [jwk] }));
  const token = await new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(JWT.issuer)
    .setAudience(JWT.audience)
    .setSubject('bench-client')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  return { jwksPath, token };
}

let logs = 0;
function starter(ctx, jwt) {
  const { options, tmp } = ctx;
  return async (contender) => {
    const logPath = contender.log ? join(tmp, `production-${contender.id}-${++logs}.log`) : undefined;
    const args = contender.jwt
      ? [...contender.args, '--jwks', jwt.jwksPath, '--jwt-issuer', JWT.issuer, '--jwt-audience', JWT.audience]
      : contender.args;
    const running = await startServer(
      contender.kind,
      { tokens: contender.jwt ? [] : [options.token], args, ...contender.options },
      { core: options.serverCore, stderrPath: logPath },
    );
    const metricsUrl =
      contender.kind === 'fastify' ? `${running.url}/metrics` : running.opsUrl && `${running.opsUrl}/metrics`;
    return { ...running, logPath, metricsUrl };
  };
}

/**
 * Whether this build checks JWTs: one server started with the JWT flags must answer the token 200
 * and the run's static token 401. Resolves undefined, or why the row cannot be measured.
 */
async function jwtUnavailable(start, options, jwt) {
  let running;
  try {
    running = await start(byId.get('jwt'));
  } catch (error) {
    const text = String(error?.message ?? error);
    const refusal = text.split('\n').find((line) => /unknown option|--jwks|--jwt-/i.test(line));
    return refusal === undefined
      ? `the JWT server did not start: ${errorText(error)}`
      : `not available in this build: the CLI refused the JWT flags (${refusal.trim()})`;
  }
  try {
    const post = (token, id) =>
      fetch(`${running.url}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: 'Fern' }),
      }).then((response) => response.status);
    const [good, bad] = [await post(jwt.token, 1), await post(options.token, 2)];
    return good === 200 && bad === 401
      ? undefined
      : `the JWT server answered ${good} to the JWT and ${bad} to a static token`;
  } finally {
    await running.stop();
  }
}

export async function run(ctx) {
  const { options, tmp, log } = ctx;
  const jwt = await makeJwt(tmp);
  const start = starter(ctx, jwt);
  const unavailable = await jwtUnavailable(start, options, jwt);
  if (unavailable) log(`bench: production JWT row ${unavailable}`);
  const tally = { ok: 0, failed: 0 };
  const pending = new Map();
  const rounds = new Map();
  const loader = startLoader({ core: options.loadCore });
  try {
    for (const pair of PAIRS) {
      const key = `${pair.a}~${pair.b}`;
      if (unavailable && (pair.a === 'jwt' || pair.b === 'jwt')) {
        pending.set(key, unavailable);
        continue;
      }
      rounds.set(
        key,
        await runPairBlocks(loader, ctx, {
          key: `production ${key}`,
          workload: UNIQUE,
          pair: [byId.get(pair.a), byId.get(pair.b)],
          start,
          token: (contender) => (contender.jwt ? jwt.token : options.token),
          during: (running) =>
            scrapeEverySecond(running.map((r) => r.metricsUrl).filter(Boolean), tally, { core: options.loadCore }),
          onFail: (error) => pending.set(key, errorText(error)),
        }),
      );
    }
  } finally {
    await loader.stop();
  }
  return { rounds, pending, tally };
}

export function report(outcome, { plan }) {
  if (!outcome.value) return notMeasured(TITLE, outcome, pairTargets('production', PAIRS, byId));
  const { tally } = outcome.value;
  // The log's bytes per request; none (—) for a server that writes no log.
  const logBytes = (n) => (Number.isFinite(n) ? fmt.int(n) : '—');
  const { rows, notes, targets } = pairReport('production', PAIRS, byId, outcome.value, [
    { field: 'logBytesPerRequest', format: logBytes },
  ]);
  return {
    targets,
    lines: [
      TITLE,
      '',
      `The real \`plant-store-server\` in memory and the fastify baseline, head to head: ${plan.headBlocks} block(s) of a fresh pair on one core at the same time, each a ${plan.warmup} s warm-up and ${plan.headRounds} rounds of ${plan.headDuration} s, the start order swapped every round; unique creates, ${plan.connections} connections to each. Logs at level info to a file; every \`/metrics\` scraped once a second while its server is up. The JWT row signs one RS256 token with a key the part makes (jose) and serves its JWKS from a file.`,
      '',
      '| a vs b | req/s a / b (median round) | a / b req/s | per-round range | p99 ms a / b (ratio) | server CPU µs/req a / b (ratio) | log bytes/req a / b | target | met |',
      '|---|--:|--:|--:|--:|--:|--:|---|---|',
      ...rows,
      '',
      '#### Details',
      '',
      ...notes,
      `- \`/metrics\` scraped ${fmt.int(tally.ok)} times with 200${tally.failed ? `, **${fmt.int(tally.failed)} failed**` : ', none failed'}.`,
      '',
    ],
  };
}
