import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const spec = yaml.load(readFileSync(join(root, 'openapi.yaml'), 'utf8')) as any;
const servicePage = join(root, 'docs', 'service.md');

interface DocumentedCode {
  status: number;
  code: number;
  name: string;
}

// The rows of a table of docs/service.md, the project's page of the service's rules, between its
// `<!-- section:<name> -->` markers: `| 400 | 40001 | \`ErrorCode.INVALID_JSON\` | when |`.
function documentedCodes(section: string): DocumentedCode[] {
  const text = readFileSync(servicePage, 'utf8');
  const start = text.indexOf(`<!-- section:${section} -->`);
  const end = text.indexOf(`<!-- /section:${section} -->`);
  expect(start, `docs/service.md has the ${section} section`).toBeGreaterThanOrEqual(0);
  expect(end, `docs/service.md closes the ${section} section`).toBeGreaterThan(start);
  const rows = text
    .slice(start, end)
    .split('\n')
    .filter((line) => /^\|\s*\d/.test(line));
  return rows.map((row) => {
    const m = /^\|\s*(\d{3})\s*\|\s*(\d{5})\s*\|\s*`ErrorCode\.([A-Z_]+)`\s*\|/.exec(row);
    expect(m, `a row of the ${section} table: ${row}`).not.toBeNull();
    return { status: Number(m![1]), code: Number(m![2]), name: m![3]! };
  });
}

const byCode = (a: { code: number }, b: { code: number }) => a.code - b.code;

describe('openapi.yaml', () => {
  it('lints clean with Redocly recommended rules', async () => {
    const { stdout, stderr } = await run('npx', ['redocly', 'lint', 'openapi.yaml', '--format=stylish'], {
      cwd: root,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const output = stdout + stderr;
    expect(output).toContain('Your API description is valid');
    expect(output).not.toMatch(/\d+ warnings?/);
  }, 60_000);

  it('matches the committed generated files (npm run generate leaves no diff)', async () => {
    await expect(run('node', ['scripts/generate.mjs', '--check'], { cwd: root })).resolves.toBeTruthy();
  }, 60_000);

  it('is OpenAPI 3.1.0 at version 1.0.0 with bearer security on the whole service', () => {
    expect(spec.openapi).toBe('3.1.0');
    expect(spec.info.version).toBe('1.0.0');
    expect(spec.security).toEqual([{ bearerAuth: [] }]);
    expect(spec.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('describes the spec resources exactly: Plant, NewPlant with a required int64 id, Error', () => {
    const { Plant, NewPlant, Error: ErrorSchema } = spec.components.schemas;
    expect(Plant.required).toEqual(['name']);
    expect(Object.keys(Plant.properties)).toEqual(['name', 'tag']);
    expect(NewPlant.allOf[0]).toEqual({ $ref: '#/components/schemas/Plant' });
    expect(NewPlant.allOf[1].required).toEqual(['id']);
    expect(NewPlant.allOf[1].properties.id).toMatchObject({ type: 'integer', format: 'int64' });
    expect(ErrorSchema.required).toEqual(['error', 'message']);
    expect(ErrorSchema.properties.error).toMatchObject({ type: 'integer', format: 'int32' });
  });

  it('lists every error code of docs/service.md with its status and name, and beyond them only transport-level codes', () => {
    const service = documentedCodes('errors');
    expect(service.length).toBeGreaterThanOrEqual(10);
    const codes = Object.entries(spec.components.schemas.Error.properties.error['x-error-codes']).map(
      ([name, c]: [string, any]) => ({ status: c.status, code: c.code, name, transport: c.transport === true }),
    );
    const pick = ({ status, code, name }: DocumentedCode) => ({ status, code, name });
    expect(
      codes
        .filter((c) => !c.transport)
        .map(pick)
        .sort(byCode),
    ).toEqual(service.sort(byCode));
    // The server's HTTP layer answers these where the core never sees a request (slow clients,
    // oversized headers); each still needs its own documented response, and the page lists them apart.
    const transport = codes
      .filter((c) => c.transport)
      .map(pick)
      .sort(byCode);
    expect(transport.map((c) => c.code)).toEqual([40801, 43101]);
    expect(transport).toEqual(documentedCodes('transport-errors').sort(byCode));
    for (const c of codes) expect(String(c.code).slice(0, 3), `code ${c.code}`).toBe(String(c.status));
  });

  it('documents a response with the Error body for every error code', () => {
    const responses = spec.paths['/plants'].post.responses;
    const codes = Object.values(spec.components.schemas.Error.properties.error['x-error-codes']) as any[];
    for (const { status, code } of codes) {
      const response = responses[String(status)];
      expect(response, `response ${status}`).toBeDefined();
      const resolved = response.$ref ? spec.components.responses[response.$ref.split('/').pop()] : response;
      expect(resolved.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      expect(resolved.description, `${status} names ${code}`).toContain(String(code));
      expect(resolved.headers['X-Request-Id']).toBeDefined();
    }
  });
});
