// The plant-store-server bin installed in a consumer project, run as an operator runs it (the bin
// itself, no shell): started and read until its banner, or run to its exit. Every wait is bounded.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { run, type RunResult } from './helpers.js';

/** A server started from the bin, listening. */
export interface StartedCli {
  readonly child: ChildProcess;
  /** The URL its banner printed, base path included. */
  readonly url: string;
  /** What it wrote so far, stdout then stderr as they came. */
  output(): string;
  /** Sends SIGTERM and resolves to the exit code, or to a note when it still runs 10 s later. */
  stop(): Promise<number | null | string>;
}

const started = new Set<ChildProcess>();
afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

const bin = (project: string) => join(project, 'node_modules/.bin/plant-store-server');

/** Starts the bin of `project` with `args` and waits (at most 15 s) for its banner. */
export function startCli(project: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<StartedCli> {
  const child = spawn(bin(project), args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 15 s:\n${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const url = /listening on (\S+)/.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({
        child,
        url,
        output: () => output,
        stop() {
          child.kill('SIGTERM');
          return Promise.race([
            exited,
            new Promise<string>((done) => setTimeout(() => done('still running 10 s after SIGTERM'), 10_000)),
          ]);
        },
      });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${output}`));
    });
  });
}

/** Runs the bin of `project` with `args` to its exit (at most 30 s). */
export function runCli(project: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return run(bin(project), args, { cwd: project, env, timeoutMs: 30_000 });
}

/** POST {url}/plants with a bearer token; resolves to the status and the body. */
export async function createPlant(url: string, token: string, plant: object): Promise<[number, unknown]> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(plant),
  });
  return [response.status, await response.json()];
}
