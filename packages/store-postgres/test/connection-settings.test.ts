// Where and how the store connects: a URL parameter, else its PG* environment variable, else libpq's
// default, with sslmode meaning what it means to psql. No database needed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { resolveConnectionSettings } from '../src/internal/connection-settings.js';

const dir = mkdtempSync(join(tmpdir(), 'plant-store-pg-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pem = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const ca = pem('root.crt', '-----BEGIN CERTIFICATE-----\nroot\n-----END CERTIFICATE-----\n');

const resolve = (connectionString: string | undefined, env: Record<string, string> = {}, caFile?: string) =>
  resolveConnectionSettings({ connectionString, env, caFile });

describe('connection settings', () => {
  it('takes host, port, user, password and database from the URL, percent-decoded', () => {
    const settings = resolve('postgres://plant%40ops:p%2Fss%3Aword@db.example:6543/plant%20store');
    expect(settings).toMatchObject({
      host: 'db.example',
      port: 6543,
      user: 'plant@ops',
      password: 'p/ss:word',
      database: 'plant store',
      target: 'db.example:6543',
    });
  });

  it('fills what the URL leaves out from PGHOST, PGPORT, PGUSER, PGPASSWORD and PGDATABASE, and the URL wins', () => {
    const env = {
      PGHOST: 'env-host',
      PGPORT: '7000',
      PGUSER: 'env-user',
      PGPASSWORD: 'env-secret',
      PGDATABASE: 'env-db',
    };
    expect(resolve(undefined, env)).toMatchObject({
      host: 'env-host',
      port: 7000,
      user: 'env-user',
      password: 'env-secret',
      database: 'env-db',
    });
    expect(resolve('postgresql://url-user@url-host/url-db', env)).toMatchObject({
      host: 'url-host',
      port: 7000,
      user: 'url-user',
      password: 'env-secret',
      database: 'url-db',
    });
    // An empty URL, as an empty DATABASE_URL gives it, is no URL.
    expect(resolve('', env)).toMatchObject({ host: 'env-host', user: 'env-user', database: 'env-db' });
  });

  it("falls back to libpq's defaults: localhost:5432, the OS user, a database named after the user, sslmode prefer", () => {
    const settings = resolve(undefined);
    expect(settings).toMatchObject({
      host: 'localhost',
      port: 5432,
      user: userInfo().username,
      database: userInfo().username,
      sslMode: 'prefer',
      password: undefined,
    });
  });

  it('takes a Unix socket directory as the host query parameter, as libpq does', () => {
    expect(resolve('postgres:///plants?host=/var/run/postgresql')).toMatchObject({
      host: '/var/run/postgresql',
      database: 'plants',
    });
  });

  it('reads connect_timeout and PGCONNECT_TIMEOUT in seconds, at least 2, and 0 as no limit', () => {
    expect(resolve('postgres://h/db?connect_timeout=7').connectTimeout).toBe(7_000);
    expect(resolve('postgres://h/db', { PGCONNECT_TIMEOUT: '1' }).connectTimeout).toBe(2_000);
    expect(resolve('postgres://h/db?connect_timeout=0').connectTimeout).toBeUndefined();
  });

  it('passes application_name (plant-store by default) and options (PGOPTIONS)', () => {
    expect(resolve('postgres://h/db').applicationName).toBe('plant-store');
    expect(resolve('postgres://h/db?application_name=api', { PGOPTIONS: '-c search_path=x' })).toMatchObject({
      applicationName: 'api',
      options: '-c search_path=x',
    });
  });

  it('refuses what is not a postgres URL, an unknown parameter and a bad port, without repeating the password', () => {
    const refusals = [
      'http://user:hunter2@host/db',
      'postgres://user:hunter2@host:99999/db',
      'postgres://user:hunter2@host/db?ssl=true',
      'not a url hunter2',
      'postgres://user:hunter2@host/db?sslmode=always',
    ];
    for (const url of refusals) {
      let error: unknown;
      try {
        resolve(url);
      } catch (caught) {
        error = caught;
      }
      expect(error, url).toBeInstanceOf(TypeError);
      expect((error as Error).message, url).not.toContain('hunter2');
    }
    expect(() => resolve('postgres://h/db?ssl=true')).toThrow(
      /"ssl".*knows host, port, user, password, dbname, sslmode/,
    );
  });

  it('names the scheme of another URL, and refuses percent-encoding that is not UTF-8, without repeating the URL', () => {
    expect(() => resolve('mysql://user:hunter2@host/db')).toThrow(
      new TypeError('connectionString must be a postgres:// or postgresql:// URL; got a mysql: URL'),
    );
    expect(() => resolve('postgres://user:hunter2%C3%28@host/db')).toThrow(
      new TypeError('connectionString has percent-encoding that is not valid UTF-8'),
    );
  });

  it("reads the URL's TLS parameters itself: the URL parser neither warns about sslmode nor reads sslrootcert=system as a file", () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      for (const mode of ['prefer', 'require', 'verify-ca']) resolve(`postgres://h/db?sslmode=${mode}`, {}, ca);
      expect(resolve('postgres://h/db?sslmode=require&sslrootcert=system').ssl).toMatchObject({
        rejectUnauthorized: true,
      });
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  describe('sslmode, as libpq means it', () => {
    it('disable and allow connect without TLS', () => {
      expect(resolve('postgres://h/db?sslmode=disable').ssl).toBeUndefined();
      expect(resolve('postgres://h/db', { PGSSLMODE: 'allow' }).ssl).toBeUndefined();
    });

    it('prefer and require encrypt without checking the server', () => {
      expect(resolve('postgres://h/db').ssl).toEqual({ rejectUnauthorized: false });
      expect(resolve('postgres://h/db?sslmode=require').ssl).toEqual({ rejectUnauthorized: false });
    });

    it('require with a root certificate checks the chain, as verify-ca does, but not the host name', () => {
      const ssl = resolve('postgres://h/db?sslmode=require', {}, ca).ssl!;
      expect(ssl).toMatchObject({ rejectUnauthorized: true, ca: expect.stringContaining('root') });
      expect(ssl.checkServerIdentity?.('h', {} as never)).toBeUndefined();
    });

    it('verify-full checks the chain against the CA file and the host name', () => {
      for (const settings of [
        resolve('postgres://h/db?sslmode=verify-full', {}, ca),
        resolve(`postgres://h/db?sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}`),
        resolve('postgres://h/db', { PGSSLMODE: 'verify-full', PGSSLROOTCERT: ca }),
      ]) {
        expect(settings.ssl).toEqual({ rejectUnauthorized: true, ca: expect.stringContaining('root') });
      }
    });

    it('verify-full with sslrootcert=system uses the system CAs', () => {
      expect(resolve('postgres://h/db?sslmode=verify-full&sslrootcert=system').ssl).toEqual({
        rejectUnauthorized: true,
      });
    });

    it('refuses verify-ca and verify-full without a root certificate, and a CA file it cannot read', () => {
      expect(() => resolve('postgres://h/db?sslmode=verify-ca')).toThrow(/needs a root certificate.*caFile/);
      expect(() => resolve('postgres://h/db?sslmode=verify-full', {}, join(dir, 'missing.crt'))).toThrow(
        /cannot read the sslrootcert file/,
      );
    });

    it('adds a client certificate and key from sslcert and sslkey (PGSSLCERT, PGSSLKEY)', () => {
      const cert = pem('client.crt', 'client cert');
      const key = pem('client.key', 'client key');
      expect(resolve('postgres://h/db?sslmode=require', { PGSSLCERT: cert, PGSSLKEY: key }).ssl).toEqual({
        rejectUnauthorized: false,
        cert: 'client cert',
        key: 'client key',
      });
    });
  });
});
