// This file is generated from openapi.yaml by `npm run generate`. Do not edit it by hand:
// the tests fail when it differs from what the generator writes.

import type { ErrorCode } from './error-codes.js';

/** A short sentence per error code for a person using an app (each x-error-codes entry's userMessage). */
export const userMessages: { readonly [C in ErrorCode]: string } = {
  40001: "The plant could not be sent as valid data.",
  40002: "Some of the plant's details are not valid.",
  40003: "This id is already taken.",
  40101: "Please sign in to add plants.",
  40102: "Your sign-in is not valid any more. Please sign in again.",
  40401: "The plant store was not found at this address.",
  40501: "The plant store does not accept this request.",
  41301: "This plant is too large to save.",
  41501: "The plant store does not accept data in this format.",
  40801: "The request took too long to arrive. Please try again.",
  43101: "The request is too large to send.",
  50001: "Something went wrong on our side. Please try again.",
  50301: "The plant store is unavailable right now. Please try again in a moment.",
  42901: "Too many requests. Please wait a moment and try again.",
  50302: "Sign-in cannot be checked right now. Please try again in a moment.",
};
