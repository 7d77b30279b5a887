// examples/jest from the packed tarballs: Jest 30 with jest-fixed-jsdom, React Testing Library and
// babel-jest, the React example's form against @plant-store/msw. One test per Jest case, and the reason
// the example's environment is jest-fixed-jsdom: in plain jsdom the same suite does not load.
// On msw 3 (PLANT_STORE_FRONTEND_MAJORS=next), which ships ES modules only, Jest loads it with Node's
// require(esm): Node 24.9 or newer and `node --experimental-vm-modules` (scripts/node-matrix.sh, Node 24).
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { checkSetupRow, FRONTEND_MAJORS, frontendMajors, setupRow } from './frontend-setups.js';
import { installConsumer, jestReportCases, registerChildCases, runChild } from './consumer-project.js';

const majors = frontendMajors();
if (majors === 'next') {
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  if (major < 24 || (major === 24 && minor < 9)) {
    throw new Error(`Jest on msw 3 needs Node 24.9 or newer, this is ${process.version}: scripts/node-matrix.sh 24`);
  }
}
const project = await installConsumer('jest', { specs: FRONTEND_MAJORS[majors].jest });
afterAll(() => project.remove());

const node = majors === 'next' ? [process.execPath, '--experimental-vm-modules', '--no-warnings'] : [process.execPath];
const jest = [...node, 'node_modules/jest/bin/jest.js', '--ci', '--json'];
const child = await runChild(project, [...jest, `--outputFile=${join(project.dir, 'report.json')}`], {
  path: join(project.dir, 'report.json'),
  read: jestReportCases,
});
console.log(
  `jest ${project.version('jest')} (msw ${project.version('msw')}): ${child.cases.length} cases in ${child.seconds.toFixed(1)} s, install ${project.installSeconds.toFixed(0)} s`,
);
registerChildCases(`Jest ${project.version('jest')}, jest-fixed-jsdom`, child, setupRow('jest').cases);
checkSetupRow('jest', project, majors);

// Which of the missing globals msw's interceptors reach first depends on their version (TextEncoder, or
// Request in later ones): the failure is the same, a web global jsdom leaves out.
it('in plain jsdom the suite stops at a ReferenceError for a web global jsdom leaves out', async () => {
  const plain = await runChild(
    project,
    [...jest, '--testEnvironment=jsdom', `--outputFile=${join(project.dir, 'plain.json')}`],
    { path: join(project.dir, 'plain.json'), read: jestReportCases },
  );
  expect(plain.result.status).not.toBe(0);
  expect(plain.cases).toHaveLength(1);
  expect(plain.cases[0]!.failures.join('\n')).toMatch(
    /ReferenceError: (TextEncoder|TextDecoder|Request|Response|Headers|fetch|ReadableStream|TransformStream) is not defined/,
  );
});
