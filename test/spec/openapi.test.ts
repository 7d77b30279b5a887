import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { PLANT_FIELDS } from '../../packages/core/src/generated/plant-shape.js';
import { SPEC_FIELDS } from '../support/new-plant-bodies.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const spec = yaml.load(readFileSync(join(root, 'openapi.yaml'), 'utf8')) as any;

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

  it("describes the spec resources: Plant with the service's name and tag (more fields may follow), NewPlant with a required int64 id, Error", () => {
    const { Plant, NewPlant, Error: ErrorSchema } = spec.components.schemas;
    // The service's own fields stay as first described; a grown spec adds fields after them.
    expect(Plant.required).toContain('name');
    expect(Plant.required).not.toContain('tag');
    expect(Object.keys(Plant.properties).slice(0, 2)).toEqual(['name', 'tag']);
    expect(NewPlant.allOf[0]).toEqual({ $ref: '#/components/schemas/Plant' });
    expect(NewPlant.allOf[1].required).toEqual(['id']);
    expect(NewPlant.allOf[1].properties.id).toMatchObject({ type: 'integer', format: 'int64' });
    expect(ErrorSchema.required).toEqual(['error', 'message']);
    expect(ErrorSchema.properties.error).toMatchObject({ type: 'integer', format: 'int32' });
  });

  it("is read into the generated field table as it is written: NewPlant's own fields, then Plant's, each with its place in both", () => {
    const { Plant } = spec.components.schemas;
    expect(PLANT_FIELDS.map(({ name, required, answered }) => ({ name, required, answered }))).toEqual(
      SPEC_FIELDS.map(({ name, required }) => ({ name, required, answered: name in Plant.properties })),
    );
    for (const field of SPEC_FIELDS) {
      const generated = PLANT_FIELDS.find(({ name }) => name === field.name)!;
      expect({ type: generated.type, kind: generated.kind }, field.name).toEqual({
        type: field.schema.type,
        kind: field.kind,
      });
    }
  });

  it('gives every error code a status matching its first digits, a remedy and a user message; transport codes apart', () => {
    // The pages' error table (README.md, docs/service.md) is made from these entries by
    // scripts/error-table.mjs (`npm run docs:spec`); test/docs/spec-pages.test.ts holds the pages to it.
    const codes = Object.entries(spec.components.schemas.Error.properties.error['x-error-codes']).map(
      ([name, c]: [string, any]) => ({ name, ...c }),
    );
    expect(codes.length).toBeGreaterThanOrEqual(10);
    for (const c of codes) {
      expect(String(c.code).slice(0, 3), `code ${c.code}`).toBe(String(c.status));
      for (const field of ['description', 'remedy', 'userMessage'])
        expect(c[field], `${c.name}.${field}`).toBeTypeOf('string');
    }
    // The server's HTTP layer answers these where the core never sees a request (slow clients,
    // oversized headers); each still needs its own documented response.
    expect(codes.filter((c) => c.transport === true).map((c) => c.code)).toEqual([40801, 43101]);
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
