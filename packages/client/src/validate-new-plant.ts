import type { ErrorCode } from './generated/error-codes.js';
import { PLANT_MESSAGES } from './generated/plant-messages.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type { NewPlant } from './types.js';
import { isSendableId } from './internal/int64.js';

/**
 * One reason a value is not a NewPlant: the service's 40002 `code`, its `message` (the words the
 * server answers with, byte for byte) and the `path` of the field it names (`[]` for the whole body).
 */
export interface NewPlantIssue extends StandardSchemaV1.Issue {
  readonly code: typeof ErrorCode.INVALID_PLANT;
  readonly message: string;
  readonly path: readonly [] | readonly ['id' | 'name' | 'tag'];
}

/**
 * What validation gives, in Standard Schema's shape: the plant to send (`value`, only the spec's
 * fields) or the `issues`, one per field at fault, in the order the service checks them.
 */
export type NewPlantValidation =
  | { readonly value: NewPlant; readonly issues?: undefined }
  | { readonly value?: undefined; readonly issues: readonly [NewPlantIssue, ...NewPlantIssue[]] };

/**
 * The strings a form holds for a plant: `id` as decimal text (converted exactly: beyond 2^53-1 it
 * becomes a bigint), `name` as typed, and `tag`, where an empty field means no tag.
 */
export interface NewPlantFormValues {
  readonly id: string;
  readonly name: string;
  readonly tag?: string | undefined;
}

const MAX_SAFE = 9007199254740991n; // 2^53-1, Number.MAX_SAFE_INTEGER
const DECIMAL = /^-?\d{1,20}$/;

// Not a server message: the service never sees such a number, because a double that large has lost its
// exact value before it is sent (createPlant refuses it with a TypeError for the same reason).
const UNSAFE_NUMBER = 'id beyond ±(2^53-1) must be a bigint: a number that large may have been rounded already';

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
  const { id, name, tag } = value as Record<string, unknown>;
  const issues: NewPlantIssue[] = [];
  if (id === undefined) issues.push(issue(PLANT_MESSAGES.idRequired, ['id']));
  else if (!isSendableId(id)) {
    // A whole number inside the int64 range that a double cannot hold exactly: in range for the
    // service, but not sendable as a number.
    const unsafe = typeof id === 'number' && Number.isInteger(id) && id >= -(2 ** 63) && id < 2 ** 63;
    issues.push(issue(unsafe ? UNSAFE_NUMBER : PLANT_MESSAGES.idRange, ['id']));
  }
  if (name === undefined) issues.push(issue(PLANT_MESSAGES.nameRequired, ['name']));
  else if (typeof name !== 'string') issues.push(issue(PLANT_MESSAGES.nameType, ['name']));
  if (tag !== undefined && typeof tag !== 'string') issues.push(issue(PLANT_MESSAGES.tagType, ['tag']));
  if (issues.length > 0) return { issues: issues as [NewPlantIssue, ...NewPlantIssue[]] };
  const plant = { id, name } as { id: number | bigint; name: string; tag?: string };
  if (tag !== undefined) plant.tag = tag as string;
  return { value: plant };
}

/**
 * Converts what a form holds ({@link NewPlantFormValues}) into a NewPlant and judges it with
 * {@link validateNewPlant}. The id text is surrounding spaces aside an optional `-` and decimal digits,
 * read exactly: a number up to 2^53-1, a bigint beyond. Anything else ('1.5', '1e3', 'abc') is the
 * service's id message; an empty id is "id is required"; an empty tag means no tag.
 * @example
 * const result = validateNewPlantForm({ id: '9007199254740993', name: 'Fern', tag: '' });
 * // { value: { id: 9007199254740993n, name: 'Fern' } }
 */
export function validateNewPlantForm(values: NewPlantFormValues): NewPlantValidation {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return validateNewPlant(values);
  const { id, name, tag } = values as { id?: unknown; name?: unknown; tag?: unknown };
  return validateNewPlant({
    id: typeof id === 'string' ? idFromText(id) : id,
    name,
    tag: tag === '' ? undefined : tag,
  });
}

/** The exact id a form's text stands for; text that is not one is passed on for the id rule to refuse. */
function idFromText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  // At most 20 digits: more is out of the int64 range anyway, and BigInt need not read a pasted novel.
  if (!DECIMAL.test(trimmed)) return trimmed;
  const id = BigInt(trimmed);
  return id >= -MAX_SAFE && id <= MAX_SAFE ? Number(id) : id;
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
