// The programs some suites need from the machine rather than from npm (Debian's PgBouncer, Patroni,
// etcd, HAProxy, Prometheus, systemd's verifier, openssl). `npm test` must pass on a machine with only Node: a suite whose tool is absent is
// skipped as a whole, and the run ends with a line naming the suite, the tool and the command that gets
// it (system-tools-setup.ts prints them). CI must prove everything: with CI=true an absent tool fails
// its suite instead, naming the same remedy, and .ci/run installs every tool.
import { accessSync, constants, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { beforeAll, describe, expect, inject } from 'vitest';
import type {} from './system-tools-setup.js';

/** A program a suite needs from the machine. */
export type SystemTool =
  | 'pgbouncer'
  | 'patroni'
  | 'etcd'
  | 'haproxy'
  | 'prometheus'
  | 'promtool'
  | 'pg_rewind'
  | 'systemd-analyze'
  | 'openssl';

interface ToolSource {
  /** The program's file name, looked up on PATH and in the sbin directories (PgBouncer's home). */
  readonly program: string;
  /** A variable that names the program's path instead. */
  readonly variable?: string;
  /** The command that installs it on Debian, as .ci/run runs it. */
  readonly install: string;
}

const SOURCES: Readonly<Record<SystemTool, ToolSource>> = {
  pgbouncer: { program: 'pgbouncer', variable: 'PLANT_STORE_TEST_PGBOUNCER', install: 'apt-get install pgbouncer' },
  patroni: { program: 'patroni', install: 'apt-get install patroni' },
  etcd: { program: 'etcd', install: 'apt-get install etcd-server' },
  haproxy: { program: 'haproxy', install: 'apt-get install haproxy' },
  prometheus: { program: 'prometheus', install: 'apt-get install prometheus' },
  promtool: { program: 'promtool', install: 'apt-get install prometheus' },
  // Patroni runs Debian's PostgreSQL (pg_basebackup makes a replica, pg_rewind rejoins an old leader),
  // whose programs are in /usr/lib/postgresql/<major>/bin, not on PATH.
  pg_rewind: { program: 'pg_rewind', variable: 'PLANT_STORE_TEST_PG_REWIND', install: 'apt-get install postgresql-15' },
  'systemd-analyze': { program: 'systemd-analyze', install: 'apt-get install systemd' },
  openssl: { program: 'openssl', install: 'apt-get install openssl' },
};

/** Debian's PostgreSQL program directories, the newest major first. */
function debianPostgresBinDirs(): string[] {
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((major) => /^\d+$/.test(major))
      .sort((a, b) => Number(b) - Number(a))
      .map((major) => join('/usr/lib/postgresql', major, 'bin'));
  } catch {
    return [];
  }
}

/** Where the program is, or undefined when the machine has none. */
export function findTool(tool: SystemTool): string | undefined {
  const { program, variable } = SOURCES[tool];
  const named = variable ? process.env[variable] : undefined;
  const candidates = named
    ? [named]
    : [
        ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
        '/usr/local/sbin',
        '/usr/sbin',
        '/sbin',
        ...debianPostgresBinDirs(),
      ].map((dir) => join(dir, program));
  return candidates.find((path) => {
    try {
      // A directory passes the execute check too (as root, always).
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}

/** Why a suite cannot run here: the tool, and how to get it. */
export function missingToolMessage(tool: SystemTool): string {
  const { program, variable, install } = SOURCES[tool];
  const named = variable && process.env[variable];
  return named
    ? `${program} is not executable at ${named} (${variable}): fix the path, or unset it and ${install}`
    : `${program} is not installed: ${install}${variable ? ` (or set ${variable} to its path)` : ''}`;
}

/** Whether a suite whose tool is absent fails (CI, which must prove everything) rather than skips. */
const absentToolFails = () => /^(1|true)$/i.test(process.env.CI ?? '');

/**
 * `describe` for a suite that needs programs from the machine. With every tool present it is a plain
 * `describe`. With one absent, the suite is skipped (its hooks never run) and the run's end names it and
 * the remedy, unless CI=true: there every test of the suite fails with that remedy.
 * @example
 * describeWithTools(['pgbouncer'], 'the store behind PgBouncer', () => { ... });
 */
export function describeWithTools(tools: readonly SystemTool[], name: string, body: () => void): void {
  const missing = tools.filter((tool) => findTool(tool) === undefined);
  if (missing.length === 0) {
    describe(name, body);
    return;
  }
  const reasons = missing.map(missingToolMessage);
  if (absentToolFails()) {
    describe(name, () => {
      beforeAll(() => {
        throw new Error(`${reasons.join('; ')} (CI=true: a suite whose tool is absent fails instead of skipping)`);
      });
      body();
    });
    return;
  }
  recordSkip(name, reasons);
  describe.skip(name, body);
}

/** Leaves a line for the run's end: the suite's file and name, and why it was skipped. */
function recordSkip(name: string, reasons: readonly string[]): void {
  let dir: string | undefined;
  try {
    dir = inject('plantStoreSkippedSuites');
  } catch {
    // Outside a vitest run with the setup: vitest's own report shows the skip.
  }
  if (!dir) return;
  const file = expect.getState().testPath;
  const where = file ? relative(process.cwd(), file) : 'a test file';
  mkdirSync(dir, { recursive: true });
  const line = `${where} > ${name}: skipped, ${reasons.join('; ')}`;
  writeFileSync(join(dir, `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`), `${line}\n`);
}
