// plant-store-server at start, against what waiting cannot cure and what it can. A wrong password, an
// unknown database, a role that may not log in, a start-up parameter PgBouncer refuses: exit 1 at once,
// naming host:port and the reason, although --database-wait allows ten minutes (the test's own bound is
// far shorter, so a start that waited fails it). Too many connections (53300) and a refused connection
// keep the wait, then exit 1 with the last reason.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sharedPgBouncer, startPgBouncer, type TestPgBouncer } from '../../../test/support/pgbouncer.js';
import { freePort, openTestDatabase, type TestDatabase } from '../../../test/support/postgres.js';
import { describeWithTools } from '../../../test/support/system-tools.js';
import { run } from './cli-process.js';

let db: TestDatabase;
const suffix = randomBytes(4).toString('hex');
const roles = { noLogin: `plant_store_nologin_${suffix}`, full: `plant_store_full_${suffix}` };
beforeAll(async () => {
  db = await openTestDatabase();
  await db.query(`CREATE ROLE ${roles.noLogin} NOLOGIN PASSWORD 'pw'`);
  await db.query(`CREATE ROLE ${roles.full} LOGIN PASSWORD 'pw' CONNECTION LIMIT 0`);
}, 180_000);
afterAll(async () => {
  for (const role of Object.values(roles)) await db?.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  await db?.close();
});

/** `url` with its user, password or database replaced. */
function variant(url: string, change: { user?: string; password?: string; database?: string; search?: string }) {
  const next = new URL(url);
  if (change.user !== undefined) next.username = change.user;
  if (change.password !== undefined) next.password = change.password;
  if (change.database !== undefined) next.pathname = `/${change.database}`;
  if (change.search !== undefined) next.search = change.search;
  return next.toString();
}

/** Starts the CLI on `url` with ten minutes of --database-wait; resolves to its exit code and stderr. */
async function start(url: string, wait = '600') {
  const server = run(['--database', url, '--database-schema', db.schema, '--database-wait', wait, '--port', '0']);
  const code = await server.exited;
  return { code, stderr: server.stderr, stdout: server.stdout };
}

const at = (url: string) => `127\\.0\\.0\\.1:${new URL(url).port}`;

it.each([
  [
    'a wrong password',
    { password: 'not-the-password' },
    /password authentication failed for user "postgres" \(28P01\)/,
  ],
  ['an unknown database', { database: `no_such_db_${suffix}` }, /database "no_such_db_\w+" does not exist \(3D000\)/],
  [
    'an unknown role',
    { user: `no_such_role_${suffix}` },
    /password authentication failed for user "no_such_role_\w+" \(28P01\)/,
  ],
  [
    'a role that may not log in',
    { user: roles.noLogin, password: 'pw' },
    /role "plant_store_nologin_\w+" is not permitted to log in \(28000\)/,
  ],
])(
  'exits 1 at once for %s, naming host:port and the reason',
  async (_, change, reason) => {
    const url = variant(db.url, change);
    const { code, stderr } = await start(url);
    expect(code).toBe(1);
    expect(stderr).toMatch(new RegExp(`could not start: PostgreSQL at ${at(url)} refused the plant store: `));
    expect(stderr).toMatch(reason);
    expect(stderr).not.toContain(new URL(db.url).password);
  },
  60_000,
);

it('keeps waiting through too many connections (53300), then exits 1 with that reason', async () => {
  const url = variant(db.url, { user: roles.full, password: 'pw' });
  const { code, stderr } = await start(url, '2');
  expect(code).toBe(1);
  expect(stderr).toMatch(
    new RegExp(
      `PostgreSQL at ${at(url)} did not accept a connection within 2 s: too many connections for role "plant_store_full_\\w+" \\(53300\\)`,
    ),
  );
}, 60_000);

describeWithTools(['pgbouncer'], 'behind PgBouncer', () => {
  let bouncer: TestPgBouncer;
  beforeAll(async () => {
    bouncer = await sharedPgBouncer(db, 'transaction');
  });

  it('exits 1 at once for a start-up parameter PgBouncer refuses (08P01), naming it', async () => {
    const url = variant(bouncer.url, { search: '?options=-c%20work_mem%3D4MB' });
    const { code, stderr } = await start(url);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `PostgreSQL at ${at(url)} refused the plant store: unsupported startup parameter: options \\(08P01\\)`,
      ),
    );
  }, 60_000);

  it('exits 1 at once for a wrong password given to PgBouncer (which sends 08P01 for it)', async () => {
    const url = variant(bouncer.url, { password: 'not-the-password' });
    const { code, stderr } = await start(url);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(`PostgreSQL at ${at(url)} refused the plant store: SASL authentication failed \\(08P01\\)`),
    );
  }, 60_000);

  it('keeps waiting while PgBouncer cannot reach its database, then exits 1 naming PgBouncer host:port', async () => {
    const gone = new URL(db.url);
    gone.port = String(await freePort());
    const cut = await startPgBouncer(gone.toString(), 'transaction');
    try {
      const { code, stderr } = await start(cut.url, '2');
      expect(code).toBe(1);
      expect(stderr).toMatch(new RegExp(`PostgreSQL at ${at(cut.url)} did not accept a connection within 2 s`));
    } finally {
      await cut.close();
    }
  }, 60_000);
});
