/** The request header that names the contract case a request belongs to (contract-host.ts); the core ignores it. */
export const CASE_HEADER = 'x-contract-case';
