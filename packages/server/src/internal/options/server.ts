// The options of the server itself: where it listens and what it takes, its log, its operations
// listener, its workers, and the help. A part of the option table (options/table.ts).
import { availableParallelism } from 'node:os';
import {
  checkAppOption,
  DEFAULT_BODY_LIMIT,
  DEFAULT_CORS_MAX_AGE,
  DEFAULT_HOST,
  DEFAULT_PORT,
} from '@plant-store/core';
import { checkLogLevel, DEFAULT_LOG_LEVEL } from '../logger.js';
import { checkPort } from '../option-checks.js';
import { checked, integer, onOff, size, sizeText, text } from './readers.js';
import { field, option } from './spec.js';
import { origins } from './values.js';

export const SERVER_OPTIONS = {
  port: option({
    group: 'server',
    env: 'PLANT_STORE_PORT',
    value: '<n>',
    reader: checked(integer({ unit: 'a port number' }), (port) => checkPort(port, 'port')),
    default: `\`${DEFAULT_PORT}\``,
    help: 'TCP port to listen on; `0` for any free one (the banner says which)',
    api: '`port`',
    into: field('server', 'port'),
  }),
  host: option({
    group: 'server',
    env: 'PLANT_STORE_HOST',
    value: '<addr>',
    reader: text({ nonEmpty: true }),
    default: `\`${DEFAULT_HOST}\``,
    help: 'interface to listen on; opening it wider is your choice',
    api: '`host`',
    into: field('server', 'host'),
  }),
  'base-path': option({
    group: 'server',
    env: 'PLANT_STORE_BASE_PATH',
    value: '<path>',
    // Its form is checked by the core, whose TypeError the CLI reports with exit code 2.
    reader: text(),
    default: 'none (`/plants`)',
    help: 'path prefix in front of `/plants`, e.g. `/api`',
    api: '`basePath`',
    into: field('server', 'basePath'),
  }),
  'body-limit': option({
    group: 'server',
    env: 'PLANT_STORE_BODY_LIMIT',
    value: '<size>',
    reader: checked(size(), (bytes) => checkAppOption('bodyLimit', bytes)),
    default: `\`${sizeText(DEFAULT_BODY_LIMIT)}\``,
    help: 'the largest request body: bytes, or with `k` or `m` (1024-based): `512k`, `1m`',
    api: '`bodyLimit` (bytes)',
    into: field('server', 'bodyLimit'),
  }),
  cors: option({
    group: 'server',
    env: 'PLANT_STORE_CORS',
    value: '<origin>',
    reader: origins(),
    default: 'off',
    help: `an allowed origin as browsers send it (\`https://app.example\`: scheme, lower-case host, no path), or \`*\`; the preflight cache is ${DEFAULT_CORS_MAX_AGE} s`,
    api: "`cors: ['https://app.example']` or `'*'`",
    into: field('server', 'cors'),
  }),
  log: option({
    group: 'logging',
    env: 'PLANT_STORE_LOG',
    reader: onOff(),
    default: 'off',
    help: 'JSON log lines on stderr (pino): one per request, and for start, drain, stop and store outages; never a token, header value, body or password',
    api: '`log: true` (stderr) or any `{ write(line) }`',
    into: (draft, on) => {
      if (on) draft.server.log = true;
    },
  }),
  'log-level': option({
    group: 'logging',
    env: 'PLANT_STORE_LOG_LEVEL',
    value: '<level>',
    reader: checked(text(), checkLogLevel),
    default: `\`${DEFAULT_LOG_LEVEL}\``,
    help: '`debug`, `info` (a line per request), `warn` or `error`',
    api: '`logLevel`',
    into: field('server', 'logLevel'),
  }),
  otel: option({
    group: 'tracing',
    env: 'PLANT_STORE_OTEL',
    reader: onOff(),
    default: 'off',
    help: 'traces through the OpenTelemetry SDK (`@opentelemetry/sdk-node`, an optional peer), set up by the standard `OTEL_*` variables (exporter, protocol, endpoint, headers, service name, sampler) in every process that serves, flushed before it exits: a span per request, continuing a `traceparent`, and one per store batch',
    into: (draft, on) => {
      if (on) draft.otel = true;
    },
  }),
  'ops-port': option({
    group: 'ops',
    env: 'PLANT_STORE_OPS_PORT',
    value: '<n>',
    reader: checked(integer({ unit: 'a port number' }), (port) => checkPort(port, 'ops.port')),
    default: 'off',
    help: 'the operations listener, on a port of its own: `/livez`, `/readyz`, `/metrics`',
    api: '`ops: { port }`',
    into: field('ops', 'port'),
  }),
  'ops-host': option({
    group: 'ops',
    env: 'PLANT_STORE_OPS_HOST',
    value: '<addr>',
    reader: text(),
    default: 'the `--host`',
    help: "the operations listener's interface",
    api: '`ops: { host }`',
    into: field('ops', 'host'),
    needs: [{ anyOf: ['ops-port'] }],
  }),
  workers: option({
    group: 'workers',
    env: 'PLANT_STORE_WORKERS',
    value: '<n|auto>',
    reader: integer({ min: 1, max: 256, unit: 'a number of processes', auto: availableParallelism }),
    default: 'one process',
    help: 'serve from n processes (`auto`: one per core) sharing the port',
    into: (draft, count) => {
      draft.workers = count;
    },
    needs: [
      {
        anyOf: ['database'],
        message: (given) =>
          `--workers needs --database: ${given('data') ? 'a --data file is locked by one process' : 'plants in memory live in one process'}, so the workers could not share them. Run one process, or keep the plants in PostgreSQL.`,
      },
    ],
  }),
  help: option({ group: 'general', short: 'h', reader: onOff(), help: 'show this help' }),
  version: option({ group: 'general', short: 'v', reader: onOff(), help: 'show the version' }),
};
