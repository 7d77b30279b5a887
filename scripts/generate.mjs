// Projects openapi.yaml into the committed files under packages/*/src/generated/: the types, the error
// codes, the default server, and the plant's shape with the code that reads, checks, writes and compares
// plants (scripts/plant-shape.mjs). `node scripts/generate.mjs` rewrites them; `--check` only compares
// and exits 1 on drift, so CI fails when someone edits the spec without regenerating (or edits the
// output by hand).
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import yaml from 'js-yaml';
import { readPlantShape, renderClientCodec, renderCoreCodec, renderShapeModule } from './plant-shape.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const specPath = join(root, 'openapi.yaml');
// Every package that speaks the wire format gets its own copy: the client may depend on nothing
// but openapi-fetch, and the core must stay free of the client.
const targets = ['packages/core/src/generated', 'packages/client/src/generated'];

const header = `// This file is generated from openapi.yaml by \`npm run generate\`. Do not edit it by hand:
// the tests fail when it differs from what the generator writes.
`;

export async function render() {
  const source = await readFile(specPath, 'utf8');
  const spec = yaml.load(source);
  const types = header + '\n' + astToString(await openapiTS(source, { alphabetize: false }));

  const codes = spec.components.schemas.Error.properties.error['x-error-codes'];
  const lines = Object.entries(codes).map(
    ([name, { code, status, description }]) => `  /** HTTP ${status}: ${description} */\n  ${name}: ${code},`,
  );
  const statuses = Object.values(codes).map(({ code, status }) => `  ${code}: ${status},`);
  const errorCodes = `${header}
/** The \`error\` values of the spec's Error body, by name (the spec's Error.error, listed in its x-error-codes). */
export const ErrorCode = {
${lines.join('\n')}
} as const;

/** One of the \`error\` values the service answers with. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The HTTP status that goes with each error code. */
export const errorStatus: { readonly [C in ErrorCode]: number } = {
${statuses.join('\n')}
};

/** Every code, for a membership check that needs no statuses (the client's, in its browser bundle). */
export const errorCodes: readonly ErrorCode[] = [${Object.values(codes)
    .map(({ code }) => code)
    .join(', ')}];
`;
  const userLines = Object.values(codes).map(({ code, userMessage }) => {
    if (typeof userMessage !== 'string' || userMessage === '') {
      throw new Error(`openapi.yaml: x-error-codes entry ${code} has no userMessage`);
    }
    return `  ${code}: ${JSON.stringify(userMessage)},`;
  });
  const userMessages = `${header}
import type { ErrorCode } from './error-codes.js';

/** A short sentence per error code for a person using an app (each x-error-codes entry's userMessage). */
export const userMessages: { readonly [C in ErrorCode]: string } = {
${userLines.join('\n')}
};
`;
  const shape = readPlantShape(spec);
  const shapeModule = renderShapeModule(shape);
  const serverUrl = spec.servers?.[0]?.url;
  if (typeof serverUrl !== 'string' || !/^https?:\/\/[^/]+$/.test(serverUrl)) {
    throw new Error(`openapi.yaml: servers[0].url must be an http(s) origin without a path, not ${serverUrl}`);
  }
  const { hostname, port } = new URL(serverUrl);
  const defaultServer = `${header}
/** The reference server's default address (the spec's first \`servers\` entry): where clients and mocks point by default. */
export const DEFAULT_BASE_URL = ${JSON.stringify(serverUrl)};
/** The host of {@link DEFAULT_BASE_URL}: the interface the reference server listens on by default. */
export const DEFAULT_HOST = ${JSON.stringify(hostname)};
/** The port of {@link DEFAULT_BASE_URL}: the reference server's default port. */
export const DEFAULT_PORT = ${Number(port || 80)};
`;
  const files = new Map();
  for (const dir of targets) {
    files.set(join(root, dir, 'openapi.ts'), types);
    files.set(join(root, dir, 'error-codes.ts'), errorCodes);
    files.set(join(root, dir, 'default-server.ts'), defaultServer);
    files.set(join(root, dir, 'plant-shape.ts'), shapeModule);
  }
  files.set(join(root, 'packages/core/src/generated/plant-codec.ts'), renderCoreCodec(shape));
  files.set(join(root, 'packages/client/src/generated/plant-codec.ts'), renderClientCodec(shape));
  // Only the client shows messages to people and validates forms.
  files.set(join(root, 'packages/client/src/generated/user-messages.ts'), userMessages);
  return files;
}

const check = process.argv.includes('--check');
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await render();
  const drift = [];
  for (const [file, text] of files) {
    const current = await readFile(file, 'utf8').catch(() => null);
    if (current === text) continue;
    drift.push(relative(root, file));
    if (!check) {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
    }
  }
  // A file the generator no longer writes (a module renamed or dropped) must not linger as stale code.
  for (const dir of new Set([...files.keys()].map((file) => dirname(file)))) {
    for (const name of await readdir(dir)) {
      const file = join(dir, name);
      if (files.has(file)) continue;
      drift.push(relative(root, file));
      if (!check) await rm(file);
    }
  }
  if (check && drift.length > 0) {
    console.error(`Generated files differ from openapi.yaml: ${drift.join(', ')}. Run \`npm run generate\`.`);
    process.exit(1);
  }
  console.log(drift.length === 0 ? 'generated files are up to date' : `wrote ${drift.join(', ')}`);
}
