import type { components } from './generated/openapi.js';

/** A plant as the service answers it (openapi.yaml: components.schemas.Plant): `name`, and `tag` when it has one. */
export type Plant = components['schemas']['Plant'];
/**
 * The request body of a create (openapi.yaml: components.schemas.NewPlant). The generated type says
 * `id: number`; on the wire the id is an int64 that the core keeps exactly as a bigint.
 */
export type NewPlant = components['schemas']['NewPlant'];
/** The spec's Error body: `error` is one of {@link ErrorCode}, `message` is for a person. */
export type ErrorBody = components['schemas']['Error'];
