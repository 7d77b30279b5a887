// examples/patroni checked in `npm test`, between runs of the suite that runs these very files
// (test/ha/patroni.test.ts, `npm run test:ha`, minutes of failovers): HAProxy accepts haproxy.cfg with
// the variables the harness gives it and refuses it with any one of them unset; patroni.yml holds
// Patroni's production timings, synchronous mode and pg_rewind, and leaves every password and every
// node's own setting to the variables the harness sets; the README names each of those variables.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { haproxyVariables } from '../../test/support/ha-cluster.js';
import { EXAMPLE_DIRECTORY, NODE_NAMES, PATRONI_TIMINGS, patroniVariables } from '../../test/support/patroni.js';
import { describeWithTools, findTool } from '../../test/support/system-tools.js';

const read = (name: string) => readFileSync(join(EXAMPLE_DIRECTORY, name), 'utf8');
const readme = read('README.md');
const haproxyText = read('haproxy.cfg');
const patroniText = read('patroni.yml');

/** The variables the harness gives HAProxy, for operator-like addresses. */
const haproxySet = haproxyVariables(
  5000,
  7000,
  NODE_NAMES.map((name, index) => ({ name, pgPort: 5432 + index, restPort: 8008 + index })),
);

/** The variables the harness gives one node's Patroni. */
const patroniSet = patroniVariables(
  'node-a',
  '/var/lib/postgresql/15/plant-store',
  { pg: 5432, rest: 8008 },
  2379,
  { superuser: 'superuser-secret', replication: 'replication-secret' },
  '/usr/lib/postgresql/15/bin',
);

interface PatroniFile {
  bootstrap: {
    dcs: {
      ttl: number;
      loop_wait: number;
      retry_timeout: number;
      synchronous_mode: boolean;
      postgresql: { use_pg_rewind: boolean };
    };
  };
  postgresql: Record<string, unknown> & { authentication: Record<string, Record<string, unknown>> };
  [key: string]: unknown;
}
const patroni = load(patroniText) as PatroniFile;

/** Patroni's rule for its timings. */
const timingsHold = ({ ttl, loop_wait, retry_timeout }: { ttl: number; loop_wait: number; retry_timeout: number }) =>
  loop_wait + 2 * retry_timeout <= ttl;

describeWithTools(['haproxy'], 'haproxy.cfg, checked by HAProxy', () => {
  /** `haproxy -c` on the file with `variables` as its whole environment beside PATH. */
  const check = (variables: Record<string, string>) =>
    spawnSync(findTool('haproxy')!, ['-c', '-f', join(EXAMPLE_DIRECTORY, 'haproxy.cfg')], {
      env: { PATH: process.env.PATH, ...variables },
      encoding: 'utf8',
    });

  it('is valid with the variables the harness sets', () => {
    const result = check(haproxySet);
    expect(result.stdout + result.stderr).toContain('Configuration file is valid');
    expect(result.status).toBe(0);
  });

  it.each(Object.keys(haproxySet))('is refused with %s unset', (name) => {
    const result = check(Object.fromEntries(Object.entries(haproxySet).filter(([key]) => key !== name)));
    expect(result.status, result.stdout + result.stderr).not.toBe(0);
  });
});

describe('haproxy.cfg', () => {
  it('reads the variables the harness sets, and no other', () => {
    const configuration = haproxyText.replace(/^\s*#.*$/gm, '');
    const named = new Set([...configuration.matchAll(/\$\{(\w+)\}/g)].map((match) => match[1]));
    expect([...named].sort()).toEqual(Object.keys(haproxySet).sort());
  });

  it('routes to the leader by Patroni’s check, and keeps the stats page on 127.0.0.1', () => {
    expect(haproxyText).toMatch(/^ {2}option httpchk GET \/primary$/m);
    expect(haproxyText).toMatch(/^ {2}http-check expect status 200$/m);
    expect(haproxyText).toMatch(/^ {2}default-server .*on-marked-down shutdown-sessions$/m);
    expect(haproxyText).toMatch(/^ {2}bind "127\.0\.0\.1:\$\{STATS_PORT\}"$/m);
  });
});

describe('patroni.yml', () => {
  it('holds Patroni’s default timings, within its rule, as the tests’ shorter ones are', () => {
    const { ttl, loop_wait, retry_timeout } = patroni.bootstrap.dcs;
    expect({ ttl, loop_wait, retry_timeout }).toEqual({ ttl: 30, loop_wait: 10, retry_timeout: 10 });
    expect(timingsHold(patroni.bootstrap.dcs)).toBe(true);
    expect(timingsHold(PATRONI_TIMINGS)).toBe(true);
    expect(PATRONI_TIMINGS.ttl).toBeLessThan(ttl);
  });

  it('runs in synchronous mode with pg_rewind', () => {
    expect(patroni.bootstrap.dcs.synchronous_mode).toBe(true);
    expect(patroni.bootstrap.dcs.postgresql.use_pg_rewind).toBe(true);
  });

  it('holds no password: the users are named, their passwords are variables', () => {
    const { superuser, replication } = patroni.postgresql.authentication;
    expect(superuser).toEqual({ username: 'postgres' });
    expect(replication).toEqual({ username: 'replicator' });
    expect(patroniText).not.toMatch(/password\s*:/i);
    expect(patroniSet.PATRONI_SUPERUSER_PASSWORD).toBe('superuser-secret');
    expect(patroniSet.PATRONI_REPLICATION_PASSWORD).toBe('replication-secret');
  });

  it('leaves what differs per node to the variables', () => {
    for (const key of ['name', 'restapi', 'etcd3']) expect(patroni).not.toHaveProperty(key);
    for (const key of ['listen', 'connect_address', 'data_dir', 'bin_dir', 'pgpass']) {
      expect(patroni.postgresql).not.toHaveProperty(key);
    }
  });

  it('names in its head every variable the harness sets', () => {
    const head = patroniText.slice(0, patroniText.indexOf('\nscope:'));
    expect(Object.keys(patroniSet).filter((name) => !head.includes(`#   ${name} `))).toEqual([]);
  });
});

describe('the README', () => {
  it('names every variable the harness sets for HAProxy and for Patroni', () => {
    const names = [...Object.keys(haproxySet), ...Object.keys(patroniSet)];
    expect(names.filter((name) => !new RegExp(`\\b${name}\\b`).test(readme))).toEqual([]);
  });
});
