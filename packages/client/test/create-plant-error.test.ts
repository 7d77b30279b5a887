import { expect, it } from 'vitest';
import {
  ErrorCode,
  isCreatePlantError,
  PlantStoreApiError,
  PlantStoreError,
  PlantStoreNetworkError,
  PlantStoreTimeoutError,
  userMessage,
  userMessages,
} from '../src/index.js';

const answer = (status: number, body: unknown) =>
  new PlantStoreApiError('POST x', new Response(JSON.stringify(body), { status }), body, 'no Error body');

it('recognises the three errors of a failed request, and nothing else, as CreatePlantError', () => {
  expect(isCreatePlantError(answer(400, { error: 40003, message: 'm' }))).toBe(true);
  expect(isCreatePlantError(new PlantStoreNetworkError('POST x', new TypeError('down')))).toBe(true);
  expect(isCreatePlantError(new PlantStoreTimeoutError('POST x', 5))).toBe(true);
  for (const other of [new PlantStoreError('base'), new TypeError('bad input'), new DOMException('aborted'), null]) {
    expect(isCreatePlantError(other)).toBe(false);
  }
});

it('tells a person "This id is already taken." for 40003, from the spec', () => {
  expect(userMessage(answer(400, { error: ErrorCode.ID_CONFLICT, message: 'id is stored already' }))).toBe(
    'This id is already taken.',
  );
});

it('has a sentence for every code of the spec, each its own', () => {
  const codes = Object.values(ErrorCode);
  expect(Object.keys(userMessages).map(Number).sort()).toEqual([...codes].sort());
  expect(new Set(Object.values(userMessages)).size).toBe(codes.length);
  for (const message of Object.values(userMessages)) expect(message).toMatch(/^[A-Z].*\.$/);
});

it('says what happened when no answer came, none in time, or an answer had no code it knows', () => {
  expect(userMessage(new PlantStoreNetworkError('POST x', new TypeError('down')))).toMatch(/could not be reached/);
  expect(userMessage(new PlantStoreTimeoutError('POST x', 5))).toMatch(/did not answer in time/);
  expect(userMessage(answer(502, 'Bad Gateway'))).toBe('The plant store answered with an unexpected error (502).');
  expect(userMessage(new TypeError('token must be a non-empty string'))).toBe(
    'Something went wrong. Please try again.',
  );
});
