// Exact int64 values from JSON number text (the service's rules: every integer in [-2^63, 2^63-1] is kept
// exactly; JSON.parse alone rounds both 2^53+1 and 1.00000000000000000001).

/** The smallest int64, -2^63. */
export const INT64_MIN = -(2n ** 63n);
/** The largest int64, 2^63-1. */
export const INT64_MAX = 2n ** 63n - 1n;

const PLAIN_INTEGER = /^-?(?:0|[1-9]\d*)$/;
const NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact value of a JSON number's text when it is an integer in the int64 range, else `undefined`.
 * Decimal and exponent forms count when their exact value is an integer (`1.0`, `1e2`: JSON Schema's
 * view of `type: integer`); `1.00000000000000000001` is a fraction, not 1.
 */
export function int64FromNumberText(text: string): bigint | undefined {
  if (PLAIN_INTEGER.test(text)) {
    // Up to 18 digits is below 10^18 < 2^63: in range without a check. Beyond 20 characters nothing
    // is in range, and BigInt would only work harder on an attacker's long literal.
    if (text.length <= 18) return BigInt(text);
    if (text.length > 20) return undefined;
    return inRange(BigInt(text));
  }
  const m = NUMBER.exec(text);
  if (m === null) return undefined;
  const negative = m[1] === '-';
  const fraction = m[3] ?? '';
  const expText = m[4] ?? '0';
  // value = digits × 10^scale, with the digits' trailing zeros moved into the scale.
  let digits = (m[2]! + fraction).replace(/^0+/, '');
  if (digits === '') return 0n;
  let trailing = 0;
  while (digits.charCodeAt(digits.length - 1 - trailing) === 48) trailing++;
  digits = digits.slice(0, digits.length - trailing);
  // An exponent of more than 6 digits is either a fraction or far beyond 2^63: never an int64.
  // Checked before Number() so that `1e99999999999999999999` costs no arithmetic.
  const expDigits = expText.replace(/^[+-]?0*/, '');
  if (expDigits.length > 6) return undefined;
  const scale = Number(expText) - fraction.length + trailing;
  if (scale < 0) return undefined; // the last digit is not 0, so a negative scale is a fraction
  if (digits.length + scale > 19) return undefined; // ≥ 10^19 > 2^63
  const magnitude = BigInt(digits) * 10n ** BigInt(scale);
  return inRange(negative ? -magnitude : magnitude);
}

function inRange(value: bigint): bigint | undefined {
  return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}
