// The contract suite's shared vocabulary: what a case is, what a transport observed, and how the two
// are compared. Runs in Node and, bundled, in the browser page, so it imports nothing of node:*.

/**
 * The ways the same core is reached: in memory, node:http (on the memory store, and on PostgreSQL), MSW,
 * and served by other runtimes.
 */
export type TransportName =
  | 'core'
  | 'server'
  | 'server-postgres'
  | 'msw-node'
  | 'msw-browser'
  | 'bun'
  | 'deno'
  | 'workerd';

/** One request exactly as sent: the method, the path under the origin, headers and body bytes. */
export interface RawRequest {
  readonly method: string;
  /** The path (and query) on the API's origin, base path included: `/plants`, `/api/plants`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Text is sent as its UTF-8 bytes, never as a string (which would add `text/plain`). */
  readonly body?: string | Uint8Array<ArrayBuffer>;
}

/** What a step must answer, by docs/service.md; every transport is also compared with the core. */
export interface Expectation {
  readonly status: number;
  /** The Error body's `error` value, for failures. */
  readonly error?: number;
  /** The exact success body, parsed, for 200s. */
  readonly json?: unknown;
  /** Exact values of headers that must be present (lower-case names). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** One request and what it must answer. */
export interface ContractStep {
  readonly request: RawRequest;
  readonly expect: Expectation;
}

/** How the service under test is configured for a case; each case starts with an empty store. */
export interface CaseConfig {
  readonly basePath?: string;
  readonly tokens?: readonly string[] | 'any';
  readonly bodyLimit?: number;
  /** JWTs accepted beside the tokens: a JWK Set held in memory, so every runtime verifies without a fetch. */
  readonly jwt?: {
    readonly jwks: { readonly keys: readonly object[] };
    readonly issuer: string;
    readonly audience: string;
  };
}

/** One row of the table: a sequence of requests against a fresh service. */
export interface ContractCase {
  readonly name: string;
  readonly config?: CaseConfig;
  readonly steps: readonly ContractStep[];
  /** Transports the case cannot run on, each with the reason; never silently left out. */
  readonly except?: Partial<Readonly<Record<TransportName, string>>>;
}

/** The headers that matter to a client, as one transport answered them. */
export const COMPARED_HEADERS = [
  'content-type',
  'www-authenticate',
  'allow',
  'x-request-id',
  'cache-control',
  'x-content-type-options',
  'retry-after',
] as const;

// openapi.yaml (the X-Request-Id parameter): a sane caller request id (1 to 128 of A-Z a-z 0-9 - _ . : /) is echoed.
const SANE_REQUEST_ID = /^[A-Za-z0-9\-_.:/]{1,128}$/;

/** What one transport answered to one step. */
export interface Observed {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | null>>;
  readonly body: string;
}

/** A whole case's answers on one transport: one entry per step, or the error that stopped it. */
export type CaseOutcome = { readonly steps: Observed[] } | { readonly failure: string };

/** Sends one raw request on a transport. */
export type Send = (request: RawRequest) => Promise<Observed>;

/** The request id the runner sends with every step, so its echo can be compared on every transport. */
export function requestIdFor(caseIndex: number, stepIndex: number): string {
  return `contract-${caseIndex}-${stepIndex}`;
}

/** The request as sent: the runner's request id added unless the case sets its own. */
export function withRequestId(request: RawRequest, caseIndex: number, stepIndex: number): RawRequest {
  const headers = { ...request.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'x-request-id')) {
    headers['x-request-id'] = requestIdFor(caseIndex, stepIndex);
  }
  return { ...request, headers };
}

/** The body as bytes, the way every transport sends it. */
export function bodyBytes(body: string | Uint8Array<ArrayBuffer> | undefined): Uint8Array<ArrayBuffer> | undefined {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

/** Reads what matters from a web `Response`. */
export async function observe(response: Response): Promise<Observed> {
  const headers: Record<string, string | null> = {};
  for (const name of COMPARED_HEADERS) headers[name] = response.headers.get(name);
  return { status: response.status, headers, body: await response.text() };
}

/** How long one step may go unanswered before the case fails (a hang guard, not a speed check). */
export const STEP_TIMEOUT_MS = 10_000;

function answered<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, hang]).finally(() => clearTimeout(timer));
}

/** Runs every step of a case in order on one transport; a step left unanswered fails the case. */
export async function runCase(testCase: ContractCase, caseIndex: number, send: Send): Promise<CaseOutcome> {
  const steps: Observed[] = [];
  try {
    for (const [stepIndex, step] of testCase.steps.entries()) {
      steps.push(await answered(send(withRequestId(step.request, caseIndex, stepIndex))));
    }
    return { steps };
  } catch (error) {
    return { failure: `step ${steps.length + 1} threw: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Every way `observed` breaks the table's expectation for `step`; empty when it holds. */
export function expectationProblems(step: ContractStep, sent: RawRequest, observed: Observed): string[] {
  const problems: string[] = [];
  const { expect } = step;
  const sentId = Object.entries(sent.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-request-id')?.[1];
  if (sentId !== undefined && SANE_REQUEST_ID.test(sentId) && observed.headers['x-request-id'] !== sentId) {
    problems.push(
      `x-request-id ${JSON.stringify(observed.headers['x-request-id'])}, expected the one sent (${sentId})`,
    );
  }
  if (observed.headers['x-request-id'] === null) problems.push('no x-request-id');
  // The service's rules: every answer, on every transport.
  if (observed.headers['cache-control'] !== 'no-store')
    problems.push(`cache-control ${JSON.stringify(observed.headers['cache-control'])}, expected "no-store"`);
  if (observed.headers['x-content-type-options'] !== 'nosniff') {
    problems.push(
      `x-content-type-options ${JSON.stringify(observed.headers['x-content-type-options'])}, expected "nosniff"`,
    );
  }
  if (observed.status !== expect.status) problems.push(`status ${observed.status}, expected ${expect.status}`);
  if (observed.headers['content-type']?.toLowerCase().startsWith('application/json') !== true) {
    problems.push(`content-type ${observed.headers['content-type']}, expected application/json`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(observed.body);
  } catch {
    problems.push(`body is not JSON: ${observed.body.slice(0, 200)}`);
  }
  if (expect.error !== undefined) {
    const body = parsed as { error?: unknown; message?: unknown } | undefined;
    if (body?.error !== expect.error) problems.push(`error ${String(body?.error)}, expected ${expect.error}`);
    if (typeof body?.message !== 'string' || body.message === '') problems.push('message is not a non-empty string');
    if (body !== undefined && Object.keys(body).sort().join(',') !== 'error,message') {
      problems.push(`Error body has other fields: ${observed.body}`);
    }
  }
  if (expect.json !== undefined && JSON.stringify(parsed) !== JSON.stringify(expect.json)) {
    problems.push(`body ${observed.body}, expected ${JSON.stringify(expect.json)}`);
  }
  for (const [name, value] of Object.entries(expect.headers ?? {})) {
    if (observed.headers[name] !== value)
      problems.push(`${name} ${JSON.stringify(observed.headers[name])}, expected ${JSON.stringify(value)}`);
  }
  return problems;
}

/**
 * Every difference between two transports' answers to one case: status, the headers that matter and
 * the body text must be identical. `x-request-id` is compared only when the step sent a sane one (a
 * generated id differs by design).
 */
export function differences(
  testCase: ContractCase,
  caseIndex: number,
  reference: CaseOutcome,
  other: CaseOutcome,
): string[] {
  if ('failure' in reference) return [`the reference failed: ${reference.failure}`];
  if ('failure' in other) return [other.failure];
  const found: string[] = [];
  testCase.steps.forEach((step, stepIndex) => {
    const a = reference.steps[stepIndex];
    const b = other.steps[stepIndex];
    if (a === undefined || b === undefined) {
      found.push(`step ${stepIndex + 1} missing`);
      return;
    }
    const sent = withRequestId(step.request, caseIndex, stepIndex).headers?.['x-request-id'];
    const compareId = sent !== undefined && SANE_REQUEST_ID.test(sent);
    if (a.status !== b.status) found.push(`step ${stepIndex + 1}: status ${b.status}, core ${a.status}`);
    for (const name of COMPARED_HEADERS) {
      if (name === 'x-request-id' && !compareId) continue;
      if (a.headers[name] !== b.headers[name]) {
        found.push(
          `step ${stepIndex + 1}: ${name} ${JSON.stringify(b.headers[name])}, core ${JSON.stringify(a.headers[name])}`,
        );
      }
    }
    if (a.body !== b.body) found.push(`step ${stepIndex + 1}: body ${b.body}, core ${a.body}`);
  });
  return found;
}

/**
 * Checks one transport's outcome of a case: the table's expectations, then identity with the core's
 * outcome. Throws one error naming the case and the transport with every problem found.
 */
export function assertContract(
  testCase: ContractCase,
  caseIndex: number,
  transport: TransportName,
  outcome: CaseOutcome,
  reference: CaseOutcome,
): void {
  const problems: string[] = [];
  if ('failure' in outcome) {
    problems.push(outcome.failure);
  } else {
    testCase.steps.forEach((step, stepIndex) => {
      const observed = outcome.steps[stepIndex];
      const sent = withRequestId(step.request, caseIndex, stepIndex);
      if (observed === undefined) problems.push(`step ${stepIndex + 1}: no answer`);
      else for (const p of expectationProblems(step, sent, observed)) problems.push(`step ${stepIndex + 1}: ${p}`);
    });
    if (transport !== 'core') problems.push(...differences(testCase, caseIndex, reference, outcome));
  }
  if (problems.length > 0) {
    throw new Error(`case "${testCase.name}" on transport ${transport}:\n  ${problems.join('\n  ')}`);
  }
}

/** The cases a transport runs, with their index in the table; the others name their reason in `except`. */
export function casesFor(
  all: readonly ContractCase[],
  transport: TransportName,
): Array<[name: string, testCase: ContractCase, caseIndex: number]> {
  return all.flatMap((testCase, caseIndex) =>
    testCase.except?.[transport] === undefined
      ? [[testCase.name, testCase, caseIndex] as [string, ContractCase, number]]
      : [],
  );
}
