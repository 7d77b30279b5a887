// The request's media type (the service's rules: `application/json`, any case, optional `charset=utf-8`).

/**
 * Whether a Content-Type value names JSON. RFC 9110 §8.3.1: type, subtype and parameter names are
 * case-insensitive, `charset` values too, and the value may be quoted (§5.6.6) with OWS around `;`.
 * Any other parameter, or another charset, is refused: the body is decoded as UTF-8 and nothing else.
 */
export function isJsonMediaType(value: string | null): boolean {
  if (value === null) return false;
  if (value === 'application/json') return true;
  const semi = value.indexOf(';');
  const essence = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  if (essence !== 'application/json') return false;
  if (semi === -1) return true;
  const params = value.slice(semi + 1).split(';');
  for (const raw of params) {
    const param = raw.trim();
    if (param === '') continue; // RFC 9110 §5.6.6 allows empty parameters
    const eq = param.indexOf('=');
    if (eq === -1) return false;
    const name = param.slice(0, eq).toLowerCase();
    let paramValue = param.slice(eq + 1).toLowerCase();
    if (paramValue.length >= 2 && paramValue.startsWith('"') && paramValue.endsWith('"'))
      paramValue = paramValue.slice(1, -1);
    if (name !== 'charset' || paramValue !== 'utf-8') return false;
  }
  return true;
}

/**
 * The declared Content-Length as a number, or -1 when absent or not a plain decimal (the transport
 * judges framing; the limit is then enforced while reading).
 */
export function declaredLength(value: string | null): number {
  if (value === null || value.length === 0) return -1;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
  }
  // More than 15 digits cannot be exact as a double, and is over any sane limit anyway.
  return value.length > 15 ? Infinity : Number(value);
}
