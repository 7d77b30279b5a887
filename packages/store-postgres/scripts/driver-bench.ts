// Which driver for the PostgreSQL store: `pg` or `postgres` (postgres.js), measured on the store's own
// workload. Callers each create unique plants one after another; a group-commit loop gathers what is
// waiting into one `INSERT … SELECT FROM unnest(…) ON CONFLICT (id) DO NOTHING RETURNING id` per batch,
// with at most `poolSize` batches in flight, as the store does. Reported per driver and concurrency:
// creates per second, the client's CPU per create (this process) and the database's (the server's
// processes, read from /proc), each the median of several alternating rounds.
//
//   npm run bench:pg-driver                                     (starts its own embedded PostgreSQL)
//   PLANT_STORE_BENCH_DATABASE_URL=postgres://… npm run bench:pg-driver
//
// With an external database the server's CPU is not measured. BENCH_ROUND_MS and BENCH_ROUNDS tune the run.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import postgres from 'postgres';
import { childrenOf, startEmbeddedPostgres } from '../../../test/support/postgres.js';

const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const POOL_SIZE = 10;
const CONCURRENCY = [16, 64];
const TABLE = 'plants_driver_bench';
const INSERT = `INSERT INTO ${TABLE} (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]) ON CONFLICT (id) DO NOTHING RETURNING id`;

/** Sends one batch; resolves to the ids the statement created, as decimal strings. */
type Send = (ids: string[], names: string[], tags: (string | null)[]) => Promise<string[]>;

interface Driver {
  readonly name: string;
  readonly send: Send;
  end(): Promise<void>;
}

function pgDriver(url: string): Driver {
  pg.types.setTypeParser(20, (text) => text);
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  return {
    name: 'pg',
    // A named statement is parsed once per connection, as the store does.
    send: async (ids, names, tags) =>
      (
        await pool.query<{ id: string }>({ name: 'plants_bench_insert', text: INSERT, values: [ids, names, tags] })
      ).rows.map((row) => row.id),
    end: () => pool.end(),
  };
}

function postgresJsDriver(url: string): Driver {
  const sql = postgres(url, {
    max: POOL_SIZE,
    prepare: true,
    types: { bigint: postgres.BigInt },
    onnotice: () => undefined,
  });
  return {
    name: 'postgres',
    send: async (ids, names, tags) =>
      (await sql.unsafe<{ id: bigint }[]>(INSERT, [ids, names, tags] as never, { prepare: true })).map((row) =>
        String(row.id),
      ),
    end: () => sql.end({ timeout: 5 }),
  };
}

/** The store's group commit, reduced to what the drivers see: batches of what waits, a bounded number in flight. */
function groupCommit(send: Send) {
  let waiting: { id: string; resolve: (created: boolean) => void; reject: (error: unknown) => void }[] = [];
  let inFlight = 0;
  let statements = 0;
  const flush = () => {
    while (inFlight < POOL_SIZE && waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      inFlight++;
      statements++;
      send(
        batch.map((w) => w.id),
        batch.map((w) => `plant ${w.id}`),
        batch.map(() => null),
      )
        .then(
          (created) => {
            const set = new Set(created);
            for (const w of batch) w.resolve(set.has(w.id));
          },
          (error: unknown) => {
            for (const w of batch) w.reject(error);
          },
        )
        .finally(() => {
          inFlight--;
          flush();
        });
    }
  };
  return {
    insert: (id: string) =>
      new Promise<boolean>((resolve, reject) => {
        waiting.push({ id, resolve, reject });
        if (waiting.length === 1) queueMicrotask(flush);
      }),
    statements: () => statements,
  };
}

/** CPU seconds used so far by the server's processes: the postmaster and its children. */
function serverCpu(postmaster: number | undefined): number {
  if (postmaster === undefined) return Number.NaN;
  let total = 0;
  for (const pid of [postmaster, ...childrenOf(postmaster)]) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in clock ticks of 1/100 s.
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // Exited meanwhile.
    }
  }
  return total;
}

let nextId = 1n;

async function round(driver: Driver, callers: number, postmaster: number | undefined) {
  const commit = groupCommit(driver.send);
  let created = 0;
  const deadline = performance.now() + ROUND_MS;
  const cpu0 = process.cpuUsage();
  const server0 = serverCpu(postmaster);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < deadline) {
        if (!(await commit.insert(String(nextId++)))) throw new Error('a unique id was not created');
        created++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const server = serverCpu(postmaster) - server0;
  return {
    perSecond: created / seconds,
    clientUs: (cpu.user + cpu.system) / created,
    serverUs: (server * 1e6) / created,
    perStatement: created / commit.statements(),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const external = process.env.PLANT_STORE_BENCH_DATABASE_URL;
  const embedded = external ? undefined : await startEmbeddedPostgres();
  const url = external ?? embedded!.url;
  const postmaster = embedded?.pid();
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  await setup.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await setup.query(`CREATE TABLE ${TABLE} (id bigint PRIMARY KEY, name text NOT NULL, tag text)`);
  try {
    console.log(
      `PostgreSQL ${(await setup.query('SHOW server_version')).rows[0].server_version}, pool ${POOL_SIZE}, ${ROUNDS} rounds of ${ROUND_MS} ms, median of rounds`,
    );
    console.log('driver    callers  creates/s  client µs/create  server µs/create  creates/statement');
    for (const callers of CONCURRENCY) {
      const drivers = [pgDriver(url), postgresJsDriver(url)];
      const results = new Map<string, Awaited<ReturnType<typeof round>>[]>(drivers.map((d) => [d.name, []]));
      // A warm-up round each (connections, prepared statements, JIT), then rounds in turn, order swapped.
      for (const driver of drivers) await round(driver, callers, postmaster);
      for (let r = 0; r < ROUNDS; r++) {
        for (const driver of r % 2 === 0 ? drivers : [...drivers].reverse()) {
          results.get(driver.name)!.push(await round(driver, callers, postmaster));
        }
      }
      for (const driver of drivers) {
        const rows = results.get(driver.name)!;
        const pick = (key: keyof (typeof rows)[number]) => median(rows.map((row) => row[key]));
        console.log(
          `${driver.name.padEnd(9)} ${String(callers).padStart(7)}  ${pick('perSecond').toFixed(0).padStart(9)}  ${pick('clientUs').toFixed(1).padStart(16)}  ${pick('serverUs').toFixed(1).padStart(16)}  ${pick('perStatement').toFixed(1).padStart(17)}`,
        );
        await driver.end();
      }
    }
  } finally {
    await setup.query(`DROP TABLE IF EXISTS ${TABLE}`);
    await setup.end();
    await embedded?.close();
  }
}

await main();
