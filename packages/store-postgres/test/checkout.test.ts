// A checked-out connection's 'error' listener: an error pg emits on a connection the store threw away
// (57P01 as a primary shuts down, arriving while the pool ends it) must not end the process.
import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { holdClient } from '../src/internal/checkout.js';
import type { PostgresPoolClient } from '../src/types.js';

/** A connection as the pool lends it: an EventEmitter that records its release. */
function connection() {
  const emitter = new EventEmitter();
  const released: (Error | undefined)[] = [];
  const client = Object.assign(emitter, {
    query: async () => ({ rows: [] }),
    release: (error?: Error) => void released.push(error),
  }) as unknown as PostgresPoolClient & EventEmitter;
  return { client, released };
}

const adminShutdown = Object.assign(new Error('terminating connection due to administrator command'), {
  code: '57P01',
  severity: 'FATAL',
});

it('keeps hearing the errors of a connection it threw away, so a late 57P01 does not end the process', () => {
  const { client, released } = connection();
  const release = holdClient(client);
  const broken = new Error('Connection terminated: no answer within 5000 ms');
  release(broken);
  expect(released).toEqual([broken]);
  expect(() => client.emit('error', adminShutdown)).not.toThrow();
});

it('hands a sound connection back with no listener of its own, so reuse adds none', () => {
  const { client, released } = connection();
  for (let i = 0; i < 20; i++) holdClient(client)();
  expect(released).toEqual(Array(20).fill(undefined));
  expect(client.listenerCount('error')).toBe(0);
  // Idle in the pool, the pool's own listener hears it; without one, EventEmitter throws, as pg would.
  expect(() => client.emit('error', adminShutdown)).toThrow(adminShutdown.message);
});

it('listens while the connection is out, and releases once', () => {
  const { client, released } = connection();
  const release = holdClient(client);
  expect(() => client.emit('error', adminShutdown)).not.toThrow();
  release();
  release(new Error('again'));
  expect(released).toEqual([undefined]);
});
