// Host lists and target_session_attrs as libpq reads them, in each place it reads them: the URL's
// authority, keyword/value strings, URL parameters and PGHOST/PGPORT. No database needed.
import { describe, expect, it } from 'vitest';
import { resolveConnectionSettings } from '../src/internal/connection-settings.js';

const resolve = (connectionString: string | undefined, env: Record<string, string> = {}) =>
  resolveConnectionSettings({ connectionString, env });

describe('host lists', () => {
  it('reads a URL whose authority lists host:port pairs, the user and password kept', () => {
    const settings = resolve('postgres://plant%40ops:p%2Cw@db1:5432,db2:5433/plants?target_session_attrs=read-write');
    expect(settings).toMatchObject({
      hosts: [
        { host: 'db1', port: 5432 },
        { host: 'db2', port: 5433 },
      ],
      host: 'db1',
      port: 5432,
      user: 'plant@ops',
      password: 'p,w',
      database: 'plants',
      targetSessionAttrs: 'read-write',
      target: 'db1:5432,db2:5433',
    });
  });

  it('gives a host without a port in a URL list the port of PGPORT, else 5432, and reads [IPv6]:port', () => {
    expect(resolve('postgresql://db1,[::1]:6000,db3/plants').hosts).toEqual([
      { host: 'db1', port: 5432 },
      { host: '::1', port: 6000 },
      { host: 'db3', port: 5432 },
    ]);
    expect(resolve('postgresql://db1,db2/plants', { PGPORT: '7000' }).hosts).toEqual([
      { host: 'db1', port: 7000 },
      { host: 'db2', port: 7000 },
    ]);
    expect(resolve('postgresql://db1,[::1]:6000/plants').target).toBe('db1:5432,[::1]:6000');
  });

  it('reads keyword/value strings: host and port lists, one port for every host, quoted values', () => {
    expect(
      resolve("host=db1,db2 port=5432,5433 dbname=plants user=ops password='it\\'s a b' target_session_attrs=primary"),
    ).toMatchObject({
      hosts: [
        { host: 'db1', port: 5432 },
        { host: 'db2', port: 5433 },
      ],
      database: 'plants',
      user: 'ops',
      targetSessionAttrs: 'primary',
    });
    expect(resolve("password='a \\' b\\\\' host = db1,db2 port= 6432").password).toBe("a ' b\\");
    expect(resolve('host=db1,db2 port=6432').hosts).toEqual([
      { host: 'db1', port: 6432 },
      { host: 'db2', port: 6432 },
    ]);
  });

  it('reads PGHOST and PGPORT lists and PGTARGETSESSIONATTRS, and the URL parameters host and port', () => {
    expect(
      resolve(undefined, { PGHOST: 'db1,db2', PGPORT: '5432,5433', PGTARGETSESSIONATTRS: 'read-write' }),
    ).toMatchObject({
      hosts: [
        { host: 'db1', port: 5432 },
        { host: 'db2', port: 5433 },
      ],
      targetSessionAttrs: 'read-write',
    });
    expect(resolve('postgres:///plants?host=db1,db2&port=5432,5433').hosts).toEqual([
      { host: 'db1', port: 5432 },
      { host: 'db2', port: 5433 },
    ]);
  });

  it('uses target_session_attrs any for one host when none is given', () => {
    expect(resolve('postgres://db1/plants')).toMatchObject({
      hosts: [{ host: 'db1', port: 5432 }],
      targetSessionAttrs: 'any',
      target: 'db1:5432',
    });
  });

  it('refuses target_session_attrs that would pick a server that cannot write, saying why', () => {
    for (const value of ['read-only', 'standby', 'prefer-standby']) {
      expect(() => resolve(`postgres://db1,db2/plants?target_session_attrs=${value}`)).toThrow(
        new TypeError(
          `target_session_attrs=${value} would connect the plant store to a server that cannot take its writes; use read-write or primary (to follow a failover), or any`,
        ),
      );
    }
    expect(() => resolve('host=db1 target_session_attrs=master')).toThrow(
      /^target_session_attrs must be one of any, read-write, primary; got "master"/,
    );
  });

  it('refuses a port list of another length than the host list, and a bad port in it', () => {
    expect(() => resolve('host=db1,db2,db3 port=5432,5433')).toThrow(
      'the PostgreSQL port list must have one port, or one for each of the 3 hosts; got 2 ports',
    );
    expect(() => resolve('postgres://db1:5432,db2:99999/plants')).toThrow(
      'the PostgreSQL port must be 1 to 65535; got "99999"',
    );
  });

  it('refuses a bad keyword/value string without repeating its values', () => {
    expect(() => resolve("host=db1 password='secret")).toThrow(
      new TypeError('the value of password in connectionString has no closing quote'),
    );
    expect(() => resolve('host=db1 sekret=hunter2')).toThrow(/^connectionString has the keyword "sekret", which/);
    expect(() => resolve('host=db1 password')).toThrow(
      new TypeError(
        'connectionString has a word without "=" and a value: separate keyword=value pairs by spaces, and quote a value that has spaces',
      ),
    );
    for (const text of ['host=db1 password=x hunter2', "host=db1 password='x'y"]) {
      let message = '';
      try {
        resolve(text);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toMatch(/hunter2|'x'y/);
    }
  });
});
