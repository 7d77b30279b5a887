// Runs one runtime for the runtime tests and makes sure it stops: when the test process closes this
// process's stdin (which also happens when that process dies), on SIGTERM or SIGINT, and after
// LIFETIME_MS at most. The command gets SIGTERM first; then everything left in this process group
// (the test starts this process as the leader of its own group), workerd under miniflare included,
// gets SIGKILL. Output passes through.
//   node test/runtimes/supervise.mjs node_modules/.bin/bun test/runtimes/bun-server.ts
import { spawn } from 'node:child_process';

const LIFETIME_MS = 10 * 60_000;
const STOP_GRACE_MS = 3_000;

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  console.error('usage: node test/runtimes/supervise.mjs <command> [args...]');
  process.exit(2);
}

const killGroup = () => {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    // Not a group leader (started by hand): only the command is stopped.
  }
  process.exit(1);
};

const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
child.once('error', (error) => {
  console.error(`could not start ${command}: ${error.message}`);
  process.exit(1);
});
child.once('exit', (code, signal) => {
  console.error(`${command} exited with ${code ?? signal}`);
  killGroup();
});

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  child.kill('SIGTERM');
  setTimeout(killGroup, STOP_GRACE_MS);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
setTimeout(stop, LIFETIME_MS).unref();
process.stdin.on('end', stop).on('error', stop).resume();
