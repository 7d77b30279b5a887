// The answers the server gives on its own (src/internal/transport-errors.ts): built with the core's
// createErrorResponse, so their headers are the core's (no-store, nosniff) and each carries the Error
// code of its body for the log and the metrics, on a socket Node handed over and through the listener.
import { expect, it } from 'vitest';
import { createTransportAnswers, rawResponse, type TransportAnswers } from '../src/internal/transport-errors.js';
import { exchangeUntilClose, serve } from './helpers.js';

const NAMES: ReadonlyArray<keyof TransportAnswers> = [
  'badRequest',
  'missingHost',
  'requestTimeout',
  'headersTooLarge',
  'internalError',
  'connectRefused',
];

it("carries its body's Error code and the core's headers, without a request id of its own", async () => {
  const answers = await createTransportAnswers('/api');
  expect(NAMES.map((name) => answers[name].errorCode)).toEqual([40001, 40001, 40801, 43101, 50001, 40401]);
  for (const name of NAMES) {
    const answer = answers[name];
    expect((JSON.parse(answer.body) as { error: number }).error).toBe(answer.errorCode);
    expect(answer.headers).toEqual({
      'cache-control': 'no-store',
      'content-type': 'application/json',
      'x-content-type-options': 'nosniff',
    });
  }
});

it('writes a raw answer with those headers, its length, its request id and Connection: close', async () => {
  const answer = (await createTransportAnswers('')).requestTimeout;
  const raw = rawResponse(answer, 'rid-1');
  const [head, body] = raw.split('\r\n\r\n');
  expect(body).toBe(answer.body);
  const lines = head!.split('\r\n');
  expect(lines[0]).toBe('HTTP/1.1 408 Request Timeout');
  expect(lines.slice(1).sort()).toEqual(
    [
      'cache-control: no-store',
      'connection: close',
      `content-length: ${Buffer.byteLength(answer.body)}`,
      'content-type: application/json',
      'x-content-type-options: nosniff',
      'x-request-id: rid-1',
    ].sort(),
  );
});

it('answers with those headers and logs and counts the Error code, on a socket and through the listener', async () => {
  let log = '';
  const server = await serve({ log: { write: (line: string) => (log += line) }, ops: { port: 0 } });
  const parseFailure = await exchangeUntilClose(server.port, 'NOT HTTP\r\n\r\n');
  const noHost = await exchangeUntilClose(server.port, 'GET /plants HTTP/1.1\r\nConnection: close\r\n\r\n');
  for (const { answers } of [parseFailure, noHost]) {
    expect(answers[0]?.status).toBe(400);
    expect(answers[0]?.headers).toMatchObject({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  }
  // The request without Host went through the listener: its line and its count carry 40001.
  const requests = log
    .split('\n')
    .filter((line) => line.includes('"message":"request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(requests).toEqual([expect.objectContaining({ status: 400, errorCode: 40001 })]);
  const metrics = await (await fetch(`${server.opsUrl}/metrics`)).text();
  expect(metrics).toMatch(/^plant_store_http_requests_total\{status="400",code="40001"\} 1$/m);
});
