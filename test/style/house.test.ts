// The shape of the source that keeps it easy to change: imports run one way (no file reaches, however
// indirectly, back to one that imports it; type-only imports count), and no source file grows past a
// length one can hold in mind. Generated files are the generator's and are left out.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const packages = join(root, 'packages');

/** The most lines a source file under packages/{name}/src may have. */
const MAX_LINES = 400;

function sourceDirectories(): string[] {
  return readdirSync(packages, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(packages, entry.name, 'src'));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.includes(`${join('src', 'generated')}`));
}

it('has no import circle in any package', async () => {
  const graph = await madge(sourceDirectories(), {
    fileExtensions: ['ts', 'tsx'],
    tsConfig: join(root, 'tsconfig.json'),
    detectiveOptions: { ts: { skipTypeImports: false } },
  });
  const circles = graph.circular().map((circle) => circle.join(' -> '));
  // A graph that found nothing would pass too: it must hold every package's entry.
  expect(Object.keys(graph.obj()).filter((file) => file.endsWith('index.ts')).length).toBeGreaterThanOrEqual(7);
  expect(
    circles,
    'import circles (run `npx madge --circular --extensions ts --ts-config tsconfig.json packages/*/src`)',
  ).toEqual([]);
});

it(`has no source file over ${MAX_LINES} lines`, () => {
  const files = sourceDirectories().flatMap(sourceFiles);
  expect(files.length).toBeGreaterThan(50);
  const long = files
    .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  expect(long, `split these files (at most ${MAX_LINES} lines each)`).toEqual([]);
});
