import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const spec = yaml.load(readFileSync(join(root, 'openapi.yaml'), 'utf8')) as any;
const decisionsPath = join(root, '..', 'shared', 'spec', 'DECISIONS.md');

// The failure table of DECISIONS.md: `| 400 | 40001 | when |` rows.
function decisionRows(): Array<{ status: number; code: number }> {
  const text = readFileSync(decisionsPath, 'utf8');
  return [...text.matchAll(/^\|\s*(\d{3})\s*\|\s*(\d{5})\s*\|/gm)].map((m) => ({
    status: Number(m[1]),
    code: Number(m[2]),
  }));
}

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
    const { Plant, NewPlant, Error } = spec.components.schemas;
    expect(Plant.required).toEqual(['name']);
    expect(Object.keys(Plant.properties)).toEqual(['name', 'tag']);
    expect(NewPlant.allOf[0]).toEqual({ $ref: '#/components/schemas/Plant' });
    expect(NewPlant.allOf[1].required).toEqual(['id']);
    expect(NewPlant.allOf[1].properties.id).toMatchObject({ type: 'integer', format: 'int64' });
    expect(Error.required).toEqual(['error', 'message']);
    expect(Error.properties.error).toMatchObject({ type: 'integer', format: 'int32' });
  });

  it('lists every error code of DECISIONS.md with its status, and no other', () => {
    const rows = decisionRows();
    expect(rows.length).toBeGreaterThanOrEqual(10);
    const codes = spec.components.schemas.Error.properties.error['x-error-codes'];
    const declared = Object.values(codes).map((c: any) => ({ status: c.status, code: c.code }));
    expect(declared.sort((a, b) => a.code - b.code)).toEqual(rows.sort((a, b) => a.code - b.code));
  });

  it('documents a response with the Error body for every status DECISIONS.md adds', () => {
    const responses = spec.paths['/plants'].post.responses;
    for (const { status, code } of decisionRows()) {
      const response = responses[String(status)];
      expect(response, `response ${status}`).toBeDefined();
      const resolved = response.$ref ? spec.components.responses[response.$ref.split('/').pop()] : response;
      expect(resolved.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
      expect(resolved.description, `${status} names ${code}`).toContain(String(code));
      expect(resolved.headers['X-Request-Id']).toBeDefined();
    }
  });
});
