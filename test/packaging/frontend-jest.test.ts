// examples/jest from the packed tarballs: Jest 30 with jest-fixed-jsdom, React Testing Library and
// babel-jest, the React example's form against @plant-store/msw. One test per Jest case, and the reason
// the example's environment is jest-fixed-jsdom: in plain jsdom the same suite does not load.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { checkSetupRow, FRONTEND_MAJORS, frontendMajors, setupRow } from './frontend-setups.js';
import { installConsumer, jestReportCases, registerChildCases, runChild } from './consumer-project.js';

const majors = frontendMajors();
const project = await installConsumer('jest', { specs: FRONTEND_MAJORS[majors].jest });
afterAll(() => project.remove());

const jest = ['node', 'node_modules/jest/bin/jest.js', '--ci', '--json'];
const child = await runChild(project, [...jest, `--outputFile=${join(project.dir, 'report.json')}`], {
  path: join(project.dir, 'report.json'),
  read: jestReportCases,
});
console.log(
  `jest ${project.version('jest')} (msw ${project.version('msw')}): ${child.cases.length} cases in ${child.seconds.toFixed(1)} s, install ${project.installSeconds.toFixed(0)} s`,
);
registerChildCases(`Jest ${project.version('jest')}, jest-fixed-jsdom`, child, setupRow('jest').cases);
checkSetupRow('jest', project, majors);

it('in plain jsdom the suite stops at "TextEncoder is not defined"', async () => {
  const plain = await runChild(
    project,
    [...jest, '--testEnvironment=jsdom', `--outputFile=${join(project.dir, 'plain.json')}`],
    { path: join(project.dir, 'plain.json'), read: jestReportCases },
  );
  expect(plain.result.status).not.toBe(0);
  expect(plain.cases).toHaveLength(1);
  expect(plain.cases[0]!.failures.join('\n')).toContain('ReferenceError: TextEncoder is not defined');
});
