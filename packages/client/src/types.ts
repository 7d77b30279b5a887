import type { components } from './generated/openapi.js';

/** A plant as the service answers it (openapi.yaml: components.schemas.Plant); the id is not echoed. */
export type Plant = components['schemas']['Plant'];

/**
 * The body of a create (openapi.yaml: components.schemas.NewPlant), with `id` as a safe-integer
 * `number` or a `bigint`, so every int64 can be sent without rounding.
 */
export type NewPlant = {
  [K in keyof components['schemas']['NewPlant']]: K extends 'id'
    ? number | bigint
    : components['schemas']['NewPlant'][K];
};

/** The spec's Error body, as every failure answers it (openapi.yaml: components.schemas.Error). */
export type ErrorBody = components['schemas']['Error'];
