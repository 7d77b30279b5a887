// Every option of plant-store-server, once: its flag, environment variable, reader, default, help,
// group, what it needs or excludes, and where its value goes (the shape: options/spec.ts). The argv
// parser, the environment fallback, the checks between options, --help and the flag reference of the
// server's README are all made from this table.
import { AUTH_OPTIONS } from './auth.js';
import { SERVER_OPTIONS } from './server.js';
import type { Group, OptionSpec } from './spec.js';
import { STORE_OPTIONS } from './store.js';

export const OPTIONS = { ...SERVER_OPTIONS, ...AUTH_OPTIONS, ...STORE_OPTIONS };

export type OptionName = keyof typeof OPTIONS;

/** The table's entries, in its order. */
export const ENTRIES = Object.entries(OPTIONS) as [OptionName, OptionSpec<unknown>][];

/** The options `plant-store-server import` takes: the two stores. */
export const IMPORT_GROUPS: readonly Group[] = ['store', 'postgres'];
