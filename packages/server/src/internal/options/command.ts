// What the command line asks for (the CLI, the workers and the store opener read it), and the draft
// the options fill in on the way there.
import type { PostgresStoreOptions } from '@plant-store/store-postgres';
import type { PlantStoreServerOptions } from '../server-types.js';

/** Where the CLI keeps plants: in memory, in a file store (`--data`), or in PostgreSQL (`--database`). */
export type StoreChoice =
  | { readonly kind: 'memory' }
  | { readonly kind: 'file'; readonly path: string }
  | PostgresChoice;

/**
 * The PostgreSQL store's options, from the `--database-*` flags and `PLANT_STORE_DATABASE_*` variables;
 * times in ms (`startTimeout`: `--database-wait`).
 */
type PostgresChoice = { readonly kind: 'postgres'; readonly connectionString: string } & Pick<
  PostgresStoreOptions,
  | 'startTimeout'
  | 'schema'
  | 'table'
  | 'poolSize'
  | 'batchesInFlight'
  | 'statementTimeout'
  | 'connectTimeout'
  | 'preparedStatements'
  | 'createTable'
>;

/** What the command line asks for. */
export type CliCommand =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  /**
   * `workers`: how many processes serve (`--workers`); without it the server is this one process.
   * `otel`: each serving process traces through the OpenTelemetry SDK (`--otel`).
   */
  | {
      readonly kind: 'start';
      readonly options: PlantStoreServerOptions;
      readonly store: StoreChoice;
      readonly workers?: number;
      readonly otel?: true;
    }
  /** `plant-store-server import --data <file> --database <url>`: copy a file store's plants into PostgreSQL. */
  | {
      readonly kind: 'import';
      readonly from: Extract<StoreChoice, { kind: 'file' }>;
      readonly to: Extract<StoreChoice, { kind: 'postgres' }>;
    };

type Writable<T> = { -readonly [K in keyof T]: T[K] };
type Auth = NonNullable<PlantStoreServerOptions['auth']>;

/** What the options given fill in, each option where its table entry says; the command is made of it. */
export interface Draft {
  /** The server's options but those assembled from several flags (auth, ops). */
  readonly server: Writable<Omit<PlantStoreServerOptions, 'auth' | 'ops'>>;
  readonly auth: Writable<Omit<Auth, 'jwt'>>;
  /** `auth.jwt`, whole once a key (`--jwks`) or secret is given: the issuer and audience go with them. */
  readonly jwt: Partial<Writable<NonNullable<Auth['jwt']>>>;
  readonly ops: { port?: number; host?: string };
  /** `--data`, `--database`: at most one. */
  readonly store: { data?: string; database?: string };
  readonly postgres: Writable<Omit<PostgresChoice, 'kind' | 'connectionString'>>;
  workers?: number;
  otel?: true;
}

/** A draft with nothing in it. */
export function emptyDraft(): Draft {
  return { server: {}, auth: {}, jwt: {}, ops: {}, store: {}, postgres: {} };
}
