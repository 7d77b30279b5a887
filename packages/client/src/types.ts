import type { components } from './generated/openapi.js';
import type { Int64Field } from './generated/plant-shape.js';

/** A plant as the service answers it (the spec's `Plant` schema); the id is not echoed. */
export type Plant = components['schemas']['Plant'];

/**
 * What a caller passes to create a plant (the spec's `NewPlant` schema): the spec's fields, each int64
 * (`id`) as a safe-integer `number` or a `bigint`, so every int64 can be sent without rounding. The
 * service answers with a {@link Plant}.
 * @example
 * const fern: NewPlant = { id: 9007199254740993n, name: 'Fern', tag: 'shade' };
 */
export type NewPlant = {
  [K in keyof components['schemas']['NewPlant']]: K extends Int64Field
    ? number | bigint
    : components['schemas']['NewPlant'][K];
};

/** The spec's Error body, as every failure answers it (the spec's `Error` schema). */
export type ErrorBody = components['schemas']['Error'];
