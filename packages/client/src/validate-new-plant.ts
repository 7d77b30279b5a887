import type { ErrorCode } from './generated/error-codes.js';
import { PLANT_MESSAGES, type NewPlantField } from './generated/plant-shape.js';
import { newPlantFromForm, newPlantIssues, type NewPlantFormValues } from './generated/plant-codec.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type { NewPlant } from './types.js';

/**
 * One reason a value is not a NewPlant: the service's 40002 `code`, its `message` (the words the
 * server answers with, byte for byte) and the `path` of the field it names (`[]` for the whole body).
 */
export interface NewPlantIssue extends StandardSchemaV1.Issue {
  readonly code: typeof ErrorCode.INVALID_PLANT;
  readonly message: string;
  readonly path: readonly [] | readonly [NewPlantField];
}

/**
 * What validation gives, in Standard Schema's shape: the plant to send (`value`, only the spec's
 * fields) or the `issues`, one per field at fault, in the order the service checks them.
 */
export type NewPlantValidation =
  | { readonly value: NewPlant; readonly issues?: undefined }
  | { readonly value?: undefined; readonly issues: readonly [NewPlantIssue, ...NewPlantIssue[]] };

export type { NewPlantFormValues } from './generated/plant-codec.js';

const issue = (message: string, path: NewPlantIssue['path']): NewPlantIssue => ({ code: 40002, message, path });

/**
 * Judges a value as the service judges a NewPlant body, with its rules and its messages (the spec's
 * `NewPlant` schema, an int64 id kept exactly), before anything is sent: what `createPlant` would be
 * given, so the id is a safe-integer number or a bigint. Fields are read as `createPlant` reads them
 * (`undefined` means absent); other fields are left out of the value. The server alone can say 40001
 * (not JSON: a value here always is), 40003 (the id is taken) and 41301 (over its own body limit).
 * @example
 * const result = validateNewPlant({ id: 9007199254740993n, name: 'Fern' });
 * if (result.issues) showIssues(result.issues); else await createPlant(token, result.value);
 */
export function validateNewPlant(value: unknown): NewPlantValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { issues: [issue(PLANT_MESSAGES.notObject, [])] };
  }
  const { issues, plant } = newPlantIssues(value as Record<string, unknown>);
  if (issues.length > 0)
    return { issues: issues.map(([message, field]) => issue(message, [field])) as [NewPlantIssue, ...NewPlantIssue[]] };
  return { value: plant as NewPlant };
}

/**
 * Converts what a form holds ({@link NewPlantFormValues}) into a NewPlant and judges it with
 * {@link validateNewPlant}. The id text is surrounding spaces aside an optional `-` and decimal digits,
 * read exactly: a number up to 2^53-1, a bigint beyond. Anything else ('1.5', '1e3', 'abc') is the
 * service's id message; an empty id is "id is required"; an empty optional field is absent (numbers are read
 * from their text the same way, JSON's number syntax).
 * @example
 * const result = validateNewPlantForm({ id: '9007199254740993', name: 'Fern', tag: '' });
 * // { value: { id: 9007199254740993n, name: 'Fern' } }
 */
export function validateNewPlantForm(values: NewPlantFormValues): NewPlantValidation {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return validateNewPlant(values);
  return validateNewPlant(newPlantFromForm(values as unknown as Record<string, unknown>));
}

/**
 * {@link validateNewPlant} as a Standard Schema v1 object, for any library that reads one
 * (TanStack Form, react-hook-form's `standardSchemaResolver`, tRPC, …).
 * @example
 * const result = await newPlantSchema['~standard'].validate({ id: 1, name: 'Fern' });
 */
export const newPlantSchema: StandardSchemaV1<NewPlant, NewPlant> = {
  '~standard': { version: 1, vendor: 'plant-store', validate: validateNewPlant },
};

/**
 * {@link validateNewPlantForm} as a Standard Schema v1 object: form strings in, a NewPlant out.
 * @example
 * useForm({ resolver: standardSchemaResolver(newPlantFormSchema) }); // react-hook-form
 */
export const newPlantFormSchema: StandardSchemaV1<NewPlantFormValues, NewPlant> = {
  '~standard': {
    version: 1,
    vendor: 'plant-store',
    validate: (value) => validateNewPlantForm(value as NewPlantFormValues),
  },
};
