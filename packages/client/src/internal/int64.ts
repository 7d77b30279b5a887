/** The spec's int64 range for `NewPlant.id`. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * Whether `id` can be sent exactly: a bigint in the int64 range, or a safe-integer number (a number
 * past 2^53-1 has been rounded already by the time it reaches us, so it would store another id).
 */
export const isSendableId = (id: unknown): id is number | bigint =>
  typeof id === 'bigint' ? id >= INT64_MIN && id <= INT64_MAX : Number.isSafeInteger(id);
