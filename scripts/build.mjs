// `npm run build`: each package's own `build` script (tsup), as many at once as the machine has cores,
// a package starting once every @plant-store package it depends on is built (its types come from their
// dist). Output is shown per package, after it ends; the exit status is 1 when any build failed.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const packages = readdirSync(join(root, 'packages')).map((folder) => {
  const manifest = JSON.parse(readFileSync(join(root, 'packages', folder, 'package.json'), 'utf8'));
  const needs = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.devDependencies });
  return { folder, name: manifest.name, needs: needs.filter((name) => name.startsWith('@plant-store/')) };
});

const built = new Set();
const started = new Set();
let failed = false;
let running = 0;

/** Builds one package; resolves with its exit status, its output printed in one piece. */
function build(pkg) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', 'build', '--silent'], {
      cwd: join(root, 'packages', pkg.folder),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code) => {
      if (output.trim()) process.stdout.write(`${pkg.name}:\n${output}`);
      resolve(code ?? 1);
    });
  });
}

await new Promise((done) => {
  const next = () => {
    if (failed && running === 0) return done();
    if (built.size === packages.length) return done();
    const ready = packages.filter((pkg) => !started.has(pkg.name) && pkg.needs.every((name) => built.has(name)));
    for (const pkg of ready.slice(0, Math.max(0, availableParallelism() - running))) {
      if (failed) break;
      started.add(pkg.name);
      running += 1;
      build(pkg).then((status) => {
        running -= 1;
        if (status === 0) built.add(pkg.name);
        else {
          failed = true;
          console.error(`${pkg.name}: build failed (exit ${status})`);
        }
        next();
      });
    }
    if (running === 0 && !failed && built.size < packages.length) {
      const stuck = packages.filter((pkg) => !built.has(pkg.name)).map((pkg) => pkg.name);
      console.error(`cannot build ${stuck.join(', ')}: a dependency between them goes round in a circle`);
      failed = true;
      done();
    }
  };
  next();
});
process.exit(failed ? 1 : 0);
