// What is left of a high-availability cluster (test/support/ha-cluster.ts) when the process that started
// it is gone: its programs are found by the pid files the harness writes next to each of them, killed,
// and the directory removed. Plain JavaScript, synchronous and free of vitest, for three callers: the
// run's teardown (test/ha/ha-setup.ts), the cluster's close(), and a watchdog each cluster starts,
// `node test/ha/sweep.mjs <pid> <dir>`, which sweeps `dir` once process `pid` (the test process) has
// ended however it ended (a SIGKILL or a Ctrl-C runs no hook of its own), and ends by itself once `dir`
// is gone.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childrenOf, pidFilesBelow } from '../support/embedded-postgres.mjs';

/**
 * The pid files below a cluster's directory and the program (its /proc comm) each names, in the order
 * they are killed: the plant-store-server processes of the tests (in the test process's group: each is
 * killed with its children, its --workers), Patroni, since it would start its PostgreSQL again, then
 * PostgreSQL (the postmaster's pid file), etcd and HAProxy.
 * @type {readonly (readonly [file: string, program: string])[]}
 */
const PID_FILES = [
  ['plant-store-server.pid', 'node'],
  ['patroni.pid', 'patroni'],
  ['postmaster.pid', 'postgres'],
  ['etcd.pid', 'etcd'],
  ['haproxy.pid', 'haproxy'],
];

/**
 * SIGKILLs every program the pid files below `dir` name, with its process group, then removes `dir`.
 * @param {string} dir
 */
export function sweepHaDirectory(dir) {
  const found = pidFilesBelow(
    dir,
    PID_FILES.map(([file]) => file),
  );
  for (const [file, program] of PID_FILES) {
    for (const each of found) if (each.file === file) killGroup(each.pid, program);
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

/**
 * The command name and process group of `pid`, from /proc (Linux), or undefined when it is gone.
 * @param {number | 'self'} pid
 */
function processInfo(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid pgrp ...: the command is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), pgid: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/**
 * SIGKILLs `pid` with its process group, if it still runs `program` (a stale pid file may name a reused
 * pid). Each program of the harness leads a group of its own (a postmaster shares its group with its
 * backends); one in the sweeping process's group is killed with its children instead.
 * @param {number} pid
 * @param {string} program
 */
function killGroup(pid, program) {
  const info = processInfo(pid);
  if (info?.comm !== program) return;
  const own = processInfo('self')?.pgid;
  for (const target of info.pgid > 1 && info.pgid !== own ? [-info.pgid, pid] : [pid, ...childrenOf(pid)]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

/**
 * The watchdog: sweeps `dir` once process `pid` is gone; ends by itself once `dir` is.
 * @param {number} pid
 * @param {string} dir
 */
function watch(pid, dir) {
  const timer = setInterval(() => {
    if (!existsSync(dir)) {
      clearInterval(timer);
      return;
    }
    try {
      process.kill(pid, 0);
    } catch {
      clearInterval(timer);
      sweepHaDirectory(dir);
    }
  }, 500);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) watch(Number(process.argv[2]), String(process.argv[3]));
