// The CLI passes libpq's host lists to the store (which follows a failover across them) instead of
// refusing them as WHATWG URLs, and still refuses what is no connection string at all.
import { expect, it } from 'vitest';
import { UsageError, parseCli } from '../src/internal/cli-options.js';
import { openStore } from '../src/internal/open-store.js';

const storeOf = (argv: string[]) => {
  const command = parseCli(argv, {});
  if (command.kind !== 'start') throw new Error(`expected start, got ${command.kind}`);
  return command.store;
};

it('takes a URL with a host list and a keyword/value string with host and port lists as they are', () => {
  for (const connectionString of [
    'postgres://u:s3cret@db1:5432,db2:5433/plants?target_session_attrs=read-write',
    'postgresql://db1,[::1]:6000/plants',
    "host=db1,db2 port=5432,5433 dbname=plants password='s3 cret'",
  ]) {
    expect(storeOf(['--database', connectionString])).toEqual({ kind: 'postgres', connectionString });
  }
});

it('still refuses a host list whose first host is no URL host, without quoting it', () => {
  expect(() => storeOf(['--database', 'postgres://u:s3cret@[bad,db2/plants'])).toThrow(
    new UsageError('--database must be a URL such as postgres://user:password@host:5432/database'),
  );
});

it('refuses, when the store opens, a target_session_attrs that asks for a server that cannot write, without the password', async () => {
  const store = storeOf(['--database', 'postgres://u:s3cret@db1:5432,db2:5433/plants?target_session_attrs=standby']);
  // Opened as cli.ts opens it: a TypeError there is "could not start: <message>" and exit code 2.
  const refused = await openStore(store).then(
    async (opened) => {
      await opened.store?.close?.();
      return undefined;
    },
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(TypeError);
  expect((refused as Error).message).toContain(
    'target_session_attrs=standby would connect the plant store to a server that cannot take its writes; use read-write or primary (to follow a failover), or any',
  );
  expect((refused as Error).message).not.toContain('s3cret');
});
