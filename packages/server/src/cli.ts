#!/usr/bin/env node
// The plant-store-server command: flags and environment in, a running server out, and a clean
// shutdown on SIGINT/SIGTERM (the service's rules, reference server defaults).
import { readFileSync } from 'node:fs';
import { openFileStore, type FileStore } from '@plant-store/store-file';
import { startPlantStoreServer, type PlantStoreServer } from './plant-store-server.js';
import { type CliCommand, USAGE, UsageError, parseCli } from './internal/cli-options.js';

async function main(): Promise<void> {
  let command: CliCommand;
  try {
    command = parseCli(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`plant-store-server: ${error.message}\nRun plant-store-server --help for the options.\n`);
      process.exit(2);
    }
    throw error;
  }
  if (command.kind === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command.kind === 'version') {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return;
  }

  const { options, data } = command;
  let store: FileStore | undefined;
  let server: PlantStoreServer;
  try {
    if (data !== undefined) store = await openFileStore({ path: data });
    server = await startPlantStoreServer({ ...options, ...(store !== undefined && { store }) });
  } catch (error) {
    // Bad options (the core checks them) must not leave the data file open and locked.
    await store?.close().catch(() => undefined);
    process.stderr.write(
      `plant-store-server: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(error instanceof RangeError || error instanceof TypeError ? 2 : 1);
  }

  // The banner goes out in one write: a program that waits for "listening on" then reads the
  // token must find it in the same chunk (two writes reached a pipe as two chunks on Node 24).
  const banner = [`Plant Store server listening on ${server.url}`];
  if (store !== undefined) {
    const recovery = store.recovery;
    // What opening the file found, so an operator sees a repaired crash without reading the file.
    const repaired =
      recovery.truncatedBytes > 0
        ? `; cut ${recovery.truncatedBytes} bytes of a torn last write (${recovery.reason ?? 'incomplete record'})`
        : '';
    banner.push(
      `Data: ${data} (${recovery.created ? 'new file' : `${recovery.plants} plant${recovery.plants === 1 ? '' : 's'} replayed`}${repaired})`,
    );
  }
  if (options.tokens === undefined && server.tokens !== 'any') {
    banner.push(`Token: ${server.tokens.join(', ')}`);
  } else if (server.tokens === 'any') {
    banner.push('Accepting any bearer token (--any-token).');
  }
  process.stdout.write(`${banner.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal means "now": skip the wait for requests in flight.
      process.stderr.write(`plant-store-server: ${signal} again, exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    server
      .close()
      .then(() => store?.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(
            `plant-store-server: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`,
          );
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
