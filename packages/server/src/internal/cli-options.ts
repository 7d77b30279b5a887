// The command line and the environment read into what the CLI does: start a server (with its store
// and workers), import a file store into PostgreSQL, or print the help or the version. Every option is
// an entry of options/table.ts; this file makes the command of the values read.
import type { PlantStoreServerOptions } from './server-types.js';
import type { CliCommand, Draft, StoreChoice } from './options/command.js';
import { usage } from './options/help.js';
import { readFlags, readOptions } from './options/read.js';
import { ENTRIES, IMPORT_GROUPS } from './options/table.js';
import { UsageError } from './options/usage-error.js';

export type { CliCommand, StoreChoice } from './options/command.js';
export { UsageError } from './options/usage-error.js';

/** The `--help` text. */
export const USAGE = usage();

type Env = Readonly<Record<string, string | undefined>>;

const ALL = ENTRIES.map(([name]) => name);
const IMPORTED = ENTRIES.filter(([, spec]) => IMPORT_GROUPS.includes(spec.group)).map(([name]) => name);

/** Reads the command line and the environment into what to do; throws {@link UsageError}. */
export function parseCli(argv: readonly string[], env: Env): CliCommand {
  if (argv[0] === 'import') return parseImport(argv.slice(1), env);
  const flags = readFlags(argv);
  if (flags.help === true) return { kind: 'help' };
  if (flags.version === true) return { kind: 'version' };
  const draft = readOptions(flags, env, ALL);
  const { workers, otel } = draft;
  return {
    kind: 'start',
    options: serverOptions(draft),
    store: storeChoice(draft),
    ...(workers !== undefined && { workers }),
    ...(otel !== undefined && { otel }),
  };
}

/** `import --data <file> --database <url>`: both stores named, nothing else taken. */
function parseImport(argv: readonly string[], env: Env): CliCommand {
  const flags = readFlags(argv);
  const unrelated = Object.keys(flags).find((name) => !(IMPORTED as readonly string[]).includes(name));
  if (unrelated !== undefined)
    throw new UsageError(`import takes --data and the --database flags only, not --${unrelated}`);
  // Its two stores go together here; what --data and --database exclude at a start does not apply.
  const draft = readOptions(flags, env, IMPORTED, false);
  const { data, database } = draft.store;
  if (data === undefined || database === undefined) {
    throw new UsageError('import needs --data <file> (the file store to read) and --database <url> (where to copy it)');
  }
  return { kind: 'import', from: { kind: 'file', path: data }, to: postgresChoice(database, draft) };
}

/** The server's options: those read as they are, and `auth` and `ops`, made of several. */
function serverOptions({ server, auth, jwt, ops }: Draft): PlantStoreServerOptions {
  const { issuer, audience, ...keys } = jwt;
  // The table has the JWT flags go with a key or a secret, and these with an issuer and an audience.
  const jwtAuth =
    issuer !== undefined && audience !== undefined && (keys.jwks !== undefined || keys.secret !== undefined)
      ? { jwt: { issuer, audience, ...keys } }
      : {};
  const allAuth = { ...jwtAuth, ...auth };
  return {
    ...server,
    ...(Object.keys(allAuth).length > 0 && { auth: allAuth }),
    ...(ops.port !== undefined && { ops: { port: ops.port, ...(ops.host !== undefined && { host: ops.host }) } }),
  };
}

/** `--data` or `--database` (the table lets at most one through), or neither: memory. */
function storeChoice(draft: Draft): StoreChoice {
  const { data, database } = draft.store;
  if (data !== undefined) return { kind: 'file', path: data };
  if (database !== undefined) return postgresChoice(database, draft);
  return { kind: 'memory' };
}

function postgresChoice(connectionString: string, draft: Draft): Extract<StoreChoice, { kind: 'postgres' }> {
  return { kind: 'postgres', connectionString, ...draft.postgres };
}
