// A copy of this repository whose openapi.yaml has grown, generated and built as a maintainer would:
// the sources copied to a temporary directory, the spec edited, `npm run generate` and `npm run build`
// run there. Its packages are "the newer build"; this repository's own dist is "the older build". The
// copy's node_modules links every dependency to this repository's, except @plant-store/*, which are the
// copy's own packages, so its builds and its CLI resolve each other and nothing of the original.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** What a package of the copy needs to build: never its dist, tests or node_modules. */
const PACKAGE_PARTS = ['src', 'scripts', 'package.json', 'tsconfig.json', 'tsup.config.ts', 'README.md', 'LICENSE'];
const ROOT_PARTS = ['openapi.yaml', 'package.json', 'tsconfig.base.json', 'tsup.package.ts', 'scripts'];

/** Schemas of fields to add: to `Plant` (answered) and to NewPlant's own object (kept, never answered). */
export interface AddedFields {
  readonly plant?: Record<string, Record<string, unknown>>;
  readonly newPlant?: Record<string, Record<string, unknown>>;
}

/** The grown copy: where it is, its CLI, and an import of its built packages. */
export interface EvolvedRepo {
  readonly root: string;
  /** The copy's dist/cli.js of @plant-store/server. */
  readonly cli: string;
  /** Imports one of the copy's built packages (its ESM entry), e.g. `load('client')`. */
  load<T = Record<string, unknown>>(name: string, entry?: string): Promise<T>;
  /** Removes the copy. */
  remove(): void;
}

/**
 * Copies the repository, adds `fields` to openapi.yaml (only the spec is edited), then runs `npm run
 * generate` and `npm run build` in the copy. Rejects with their output when either fails.
 */
export async function evolveRepo(fields: AddedFields): Promise<EvolvedRepo> {
  const root = mkdtempSync(join(tmpdir(), 'plant-store-evolved-'));
  try {
    for (const part of ROOT_PARTS) cpSync(join(ROOT, part), join(root, part), { recursive: true });
    for (const name of readdirSync(join(ROOT, 'packages'))) {
      for (const part of PACKAGE_PARTS) {
        const from = join(ROOT, 'packages', name, part);
        try {
          cpSync(from, join(root, 'packages', name, part), { recursive: true });
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
    }
    linkDependencies(root);
    const specPath = join(root, 'openapi.yaml');
    const spec = yaml.load(readFileSync(specPath, 'utf8')) as {
      components: { schemas: Record<string, { properties?: object; allOf?: { properties?: object }[] }> };
    };
    const schemas = spec.components.schemas;
    Object.assign(schemas.Plant!.properties!, fields.plant);
    const own = schemas.NewPlant!.allOf!.find((part) => part.properties !== undefined)!;
    Object.assign(own.properties!, fields.newPlant);
    writeFileSync(specPath, yaml.dump(spec, { lineWidth: -1 }));
    await step(root, ['scripts/generate.mjs']);
    await step(root, ['scripts/build.mjs']);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
  return {
    root,
    cli: join(root, 'packages', 'server', 'dist', 'cli.js'),
    load: (name, entry = 'index.js') => import(join(root, 'packages', name, 'dist', entry)),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** node_modules of the copy: a link per dependency of this repository's, the copy's own @plant-store/*. */
function linkDependencies(root: string): void {
  const modules = join(root, 'node_modules');
  mkdirSync(join(modules, '@plant-store'), { recursive: true });
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry === '@plant-store') continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry));
  }
  for (const name of readdirSync(join(root, 'packages'))) {
    symlinkSync(join(root, 'packages', name), join(modules, '@plant-store', name));
  }
}

async function step(root: string, args: string[]): Promise<void> {
  try {
    await run(process.execPath, args, { cwd: root, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${args.join(' ')} failed in the grown copy:\n${stdout}\n${stderr}`);
  }
}
