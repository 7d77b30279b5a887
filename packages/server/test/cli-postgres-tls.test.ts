// plant-store-server over TLS to a real PostgreSQL with `ssl = on`, a certificate from a CA the test
// makes with openssl, and a pg_hba.conf that takes TLS connections only (hostssl). verify-full with that
// CA serves; a wrong CA, a host name the certificate does not name, and sslmode=disable exit 1 at once
// (within the test's bound, far below the ten-minute --database-wait), naming why and host:port; a URL
// that asks for verification never falls back to a plain connection.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type EmbeddedDatabase,
  openTestDatabase,
  startEmbeddedPostgres,
  type TestDatabase,
} from '../../../test/support/postgres.js';
import {
  installServerCertificate,
  makeTestCertificates,
  type TestCertificates,
  TLS_SETTINGS,
} from '../../../test/support/tls.js';
import { describeWithTools } from '../../../test/support/system-tools.js';
import { listening, run } from './cli-process.js';
import { createPlant } from './cli-postgres-support.js';

describeWithTools(['openssl'], 'over TLS with certificates made by openssl', () => {
  let certificates: TestCertificates;
  let tls: EmbeddedDatabase;
  let plain: TestDatabase;
  beforeAll(async () => {
    certificates = makeTestCertificates();
    tls = await startEmbeddedPostgres({
      // 127.0.0.2 too: the same server under an address its certificate does not name.
      settings: { ...TLS_SETTINGS, listen_addresses: '127.0.0.1,127.0.0.2' },
      hba: 'hostssl all all 127.0.0.0/8 scram-sha-256\n',
      configure: (dataDir) => installServerCertificate(dataDir, certificates),
    });
    plain = await openTestDatabase();
  }, 180_000);
  afterAll(async () => {
    await tls?.close();
    await plain?.close();
    certificates?.close();
  });

  /** The TLS server's URL with `host` and the query `search`. */
  function url(search: string, host = '127.0.0.1'): string {
    const next = new URL(tls.url);
    next.hostname = host;
    next.search = search;
    return next.toString();
  }

  const start = (database: string, env: Record<string, string> = {}) =>
    run(['--database', database, '--database-wait', '600', '--port', '0', '--token', 't0k'], env);

  async function failure(database: string) {
    const server = start(database);
    return { code: await server.exited, stderr: server.stderr };
  }

  it('serves over verify-full with the test CA as sslrootcert, on a TLS connection', async () => {
    const name = 'plant-store-tls-check';
    const server = start(
      url(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(certificates.caFile)}&application_name=${name}`),
    );
    expect(await createPlant(await listening(server), 't0k', 1)).toBe(200);
    const check = new pg.Client({ connectionString: tls.url, ssl: { ca: readFileSync(certificates.caFile, 'utf8') } });
    await check.connect();
    try {
      const { rows } = await check.query<{ ssl: boolean }>(
        'SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = $1',
        [name],
      );
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.ssl)).toBe(true);
    } finally {
      await check.end();
    }
    server.child.kill('SIGTERM');
    expect(await server.ended).toEqual([0, null]);
  }, 60_000);

  it('serves over verify-full from PGSSLMODE and PGSSLROOTCERT', async () => {
    const server = start(url(''), { PGSSLMODE: 'verify-full', PGSSLROOTCERT: certificates.caFile });
    await listening(server);
    server.child.kill('SIGTERM');
    expect(await server.ended).toEqual([0, null]);
  }, 60_000);

  it('exits 1 at once for a certificate signed by another CA than sslrootcert, naming why and host:port', async () => {
    const { code, stderr } = await failure(
      url(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(certificates.otherCaFile)}`),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `PostgreSQL at 127\\.0\\.0\\.1:${tls.port} refused the plant store: the server's TLS certificate does not verify \\(sslmode, sslrootcert\\): .*\\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\\)`,
      ),
    );
  }, 60_000);

  it('exits 1 at once with verify-full for a host name the certificate does not name', async () => {
    const { code, stderr } = await failure(
      url(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(certificates.caFile)}`, '127.0.0.2'),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `PostgreSQL at 127\\.0\\.0\\.2:${tls.port} refused the plant store: the server's TLS certificate does not verify .*IP: 127\\.0\\.0\\.2 is not in the cert's list.*\\(ERR_TLS_CERT_ALTNAME_INVALID\\)`,
      ),
    );
  }, 60_000);

  it('serves with verify-ca under that host name: the chain is checked, the name is not', async () => {
    const server = start(url(`?sslmode=verify-ca&sslrootcert=${encodeURIComponent(certificates.caFile)}`, '127.0.0.2'));
    await listening(server);
    server.child.kill('SIGTERM');
    expect(await server.ended).toEqual([0, null]);
  }, 60_000);

  it('exits 1 at once with sslmode=disable against a hostssl-only pg_hba.conf (28000)', async () => {
    const { code, stderr } = await failure(url('?sslmode=disable'));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `PostgreSQL at 127\\.0\\.0\\.1:${tls.port} refused the plant store: no pg_hba\\.conf entry for host "127\\.0\\.0\\.1", user "postgres", database "postgres", no encryption \\(28000\\)`,
      ),
    );
  }, 60_000);

  it('never falls back to a plain connection when the URL asks for verification: a server without TLS exits 1 at once', async () => {
    const database = new URL(plain.url);
    database.search = `?sslmode=verify-full&sslrootcert=${encodeURIComponent(certificates.caFile)}`;
    const { code, stderr } = await failure(database.toString());
    expect(code).toBe(1);
    expect(stderr).toMatch(/refused the plant store: The server does not support SSL connections/);
  }, 60_000);
});
