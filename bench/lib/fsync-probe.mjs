// How long one append + fdatasync takes on the disk under the temp directory: with group commit,
// a durable server can ack at most (connections in flight) / (this latency) creates per second, so
// the durable row is read against this ceiling. Usage: node fsync-probe.mjs '<json {dir, count}>'.
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';

const { dir, count = 200 } = JSON.parse(process.argv[2]);
const file = join(dir, `fsync-probe-${process.pid}.log`);
const handle = await open(file, 'a');
const line = Buffer.from(
  `${JSON.stringify({ id: '4611686018427387904', name: 'Monstera deliciosa', tag: 'indoor' })}\n`,
);
const times = [];
try {
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await handle.write(line);
    await handle.datasync();
    times.push(performance.now() - start);
  }
} finally {
  await handle.close();
  await rm(file, { force: true });
}
times.sort((a, b) => a - b);
process.stdout.write(
  `RESULT ${JSON.stringify({ count, p50Ms: times[Math.floor(count / 2)], p99Ms: times[Math.ceil(count * 0.99) - 1] })}\n`,
);
