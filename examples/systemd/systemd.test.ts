// examples/systemd/plant-store.service, checked by systemd itself (`systemd-analyze verify`: Debian has
// it; where it is missing that suite is skipped and named at the run's end, and fails in CI), and for
// what it asks of the server: flags it takes, secrets out of the arguments.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, runOk } from '../../test/packaging/helpers.js';
import { describeWithTools } from '../../test/support/system-tools.js';

const unit = readFileSync(join(repoRoot, 'examples/systemd/plant-store.service'), 'utf8');
const cli = join(repoRoot, 'packages/server/dist/cli.js');
const execStart = /^ExecStart=(.+)$/m.exec(unit)![1]!.split(' ');
const [binary, ...args] = execStart;
const flag = (name: string) => args[args.indexOf(name) + 1];

const work = mkdtempSync(join(tmpdir(), 'plant-store-systemd-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * `systemd-analyze verify` of the unit, its ExecStart binary pointed at the built CLI (verify checks that
 * the command exists and is executable; the unit names where `npm install --global` puts it).
 */
function verify(text: string) {
  const path = join(work, 'plant-store.service');
  writeFileSync(path, text.replace(`ExecStart=${binary} `, `ExecStart=${cli} `));
  return spawnSync('systemd-analyze', ['verify', path], { encoding: 'utf8' });
}

describeWithTools(['systemd-analyze'], 'the systemd unit, verified by systemd', () => {
  it('passes systemd-analyze verify with no warning', () => {
    const result = verify(unit);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('is checked: a misspelt directive is reported', () => {
    const result = verify(unit.replace('NoNewPrivileges=', 'NoNewPrivilegez='));
    expect(result.stderr).toMatch(/Unknown key 'NoNewPrivilegez'/);
  });
});

describe('the systemd unit', () => {
  it('runs the installed bin, binds 0.0.0.0, keeps the ops port local, reads its secrets from files', () => {
    expect(binary).toBe('/usr/local/bin/plant-store-server');
    expect(flag('--host')).toBe('0.0.0.0');
    expect(flag('--ops-host')).toBe('127.0.0.1');
    expect(flag('--token-file')).toMatch(/^\/etc\/plant-store\//);
    // The database URL (with its password) comes from the EnvironmentFile, which systemd reads as root.
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/plant-store\/environment$/m);
    expect(args.filter((a) => /postgres:|^--database$|^--token$/.test(a))).toEqual([]);
    expect(unit).toMatch(/^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
  });

  it('gives the server only flags that plant-store-server --help lists', async () => {
    const help = (await runOk(process.execPath, [cli, '--help'])).stdout;
    const flags = args.filter((a) => a.startsWith('--'));
    expect(flags.length).toBeGreaterThan(0);
    expect(flags.filter((f) => !new RegExp(`^\\s+${f} `, 'm').test(help))).toEqual([]);
  });
});
