#!/usr/bin/env node
// The plant-store-server command: flags and environment in, a running server out, and a clean
// shutdown on SIGINT/SIGTERM (the service's rules, reference server defaults).
import cluster from 'node:cluster';
import { samePlant, type PlantStore } from '@plant-store/core';
import { openFileStore } from '@plant-store/store-file';
import { version } from '../package.json';
import { type AssembledServer, assembleServer } from './internal/assemble.js';
import { type CliCommand, parseCli, type StoreChoice, USAGE, UsageError } from './internal/cli-options.js';
import {
  drainAndExit,
  exitCodeOf,
  fail,
  flushOnExit,
  messageOf,
  reloadTokensOnHangup,
  startBanner,
} from './internal/cli-lifecycle.js';
import { runPrimary, runWorker } from './internal/cluster.js';
import { loadPostgresStore, MissingPackageError, openPostgres, openStore } from './internal/open-store.js';
import { findTracingSdk, loadTracingSdk, startTracing } from './internal/tracing-sdk.js';

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
    process.stdout.write(`${version}\n`);
    return;
  }
  // The PostgreSQL store is an optional peer: without it, say what to install before anything starts.
  if (command.kind === 'import' || command.store.kind === 'postgres') {
    try {
      await loadPostgresStore();
    } catch (error) {
      if (!(error instanceof MissingPackageError)) throw error;
      process.stderr.write(`plant-store-server: ${error.message}\n`);
      process.exit(2);
    }
  }
  if (command.kind === 'import') {
    process.exit(await runImport(command.from.path, command.to));
  }
  // --otel: the SDK is an optional peer too; every process that serves starts it. The primary of
  // --workers serves nothing: it only makes sure the SDK is there, so that a missing package stops
  // the command before any worker starts.
  if (command.otel === true) {
    try {
      if (command.workers !== undefined && cluster.isPrimary) findTracingSdk();
      else
        flushOnExit(await startTracing(await loadTracingSdk()), {
          options: command.options,
          ...(cluster.worker !== undefined && { worker: cluster.worker.id }),
        });
    } catch (error) {
      if (!(error instanceof MissingPackageError)) throw error;
      process.stderr.write(`plant-store-server: ${error.message}\n`);
      process.exit(2);
    }
  }

  if (command.workers !== undefined) {
    if (cluster.isPrimary) await runPrimary(command, (banner) => process.stdout.write(banner));
    else await runWorker(command);
    return;
  }

  const { options } = command;
  let started: AssembledServer<PlantStore>;
  try {
    started = await assembleServer<PlantStore>({ options, openStore: () => openStore(command.store) });
  } catch (error) {
    fail('could not start', error);
  }
  const { server, storeBanner } = started;

  // The signals are ours before the banner says so: a supervisor that stops the server the moment it
  // reads "listening on" must get a drain and exit 0, not the default action of the signal.
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal means "now": skip the wait for requests in flight.
      process.stderr.write(`plant-store-server: ${signal} again, exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    drainAndExit(server);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (options.tokenFile !== undefined) reloadTokensOnHangup(server, options.log === true);

  process.stdout.write(
    startBanner(options, {
      url: server.url,
      tokens: server.tokens,
      ...(server.opsUrl !== undefined && { opsUrl: server.opsUrl }),
      ...(storeBanner !== undefined && { storeBanner }),
    }),
  );
}

/**
 * Copies every plant of a file store into PostgreSQL, in the file's order. Idempotent: a plant already
 * in the table with the same fields counts as there; one with other fields under its id
 * is a conflict, left as it is in the table and reported (exit 1).
 */
async function runImport(path: string, to: Extract<StoreChoice, { kind: 'postgres' }>): Promise<number> {
  let from: Awaited<ReturnType<typeof openFileStore>> | undefined;
  let into: Awaited<ReturnType<typeof openPostgres>> | undefined;
  try {
    from = await openFileStore({ path });
    into = await openPostgres(to);
    const plants = await from.list();
    let created = 0;
    let present = 0;
    const conflicts: bigint[] = [];
    // Chunks of concurrent inserts: the store sends each chunk as a few multi-row statements.
    for (let start = 0; start < plants.length; start += 1000) {
      const chunk = plants.slice(start, start + 1000);
      const store = into;
      const results = await Promise.all(chunk.map((plant) => store.insert(plant)));
      results.forEach((result, i) => {
        const plant = chunk[i]!;
        if (result.created) created++;
        else if (samePlant(result.existing, plant)) present++;
        else conflicts.push(plant.id);
      });
    }
    process.stdout.write(
      `Imported ${path} into ${into.table} at ${into.target}: ${plants.length} plants, ${created} created, ${present} already there, ${conflicts.length} in conflict.\n`,
    );
    if (conflicts.length === 0) return 0;
    const shown = conflicts.slice(0, 10).join(', ');
    process.stderr.write(
      `plant-store-server: ${conflicts.length} id${conflicts.length === 1 ? ' is' : 's are'} stored in the table with other fields, left as they are: ${shown}${conflicts.length > 10 ? ', …' : ''}\n`,
    );
    return 1;
  } catch (error) {
    process.stderr.write(
      `plant-store-server: import failed: ${messageOf(error)}\nWhat was copied stays; running the import again copies the rest.\n`,
    );
    return exitCodeOf(error);
  } finally {
    await into?.close().catch(() => undefined);
    await from?.close().catch(() => undefined);
  }
}

await main();
