import type { components } from './generated/openapi.js';

/** A plant as the service answers it (the spec's `Plant` schema): its fields, each optional one when the plant has it. */
export type Plant = components['schemas']['Plant'];
/** The spec's Error body: `error` is one of {@link ErrorCode}, `message` is for a person. */
export type ErrorBody = components['schemas']['Error'];
