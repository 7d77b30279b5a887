// Finds a top-level member's raw value text in JSON text, for what JSON.parse cannot keep (int64).

/**
 * The raw text of the value of the top-level member named `key`, in `json`, which must be text that
 * JSON.parse accepted and whose top level is an object. Like JSON.parse, the last of duplicate keys
 * wins, and keys are compared after unescaping (`"\u0069d"` is `id`). Returns `undefined` when absent.
 */
export function topLevelMemberText(json: string, key: string): string | undefined {
  const n = json.length;
  let i = skipWs(json, 0);
  // json[i] is '{', guaranteed by the caller.
  i = skipWs(json, i + 1);
  let found: string | undefined;
  while (i < n && json.charCodeAt(i) !== 125 /* } */) {
    // A member: "key" ws : ws value ws [,]
    const keyEnd = stringEnd(json, i);
    let name = json.slice(i + 1, keyEnd - 1);
    if (name.indexOf('\\') !== -1) name = JSON.parse(json.slice(i, keyEnd)) as string;
    i = skipWs(json, keyEnd);
    i = skipWs(json, i + 1); // past ':'
    const valueEnd = valueEndAt(json, i);
    if (name === key) found = json.slice(i, valueEnd);
    i = skipWs(json, valueEnd);
    if (json.charCodeAt(i) === 44 /* , */) i = skipWs(json, i + 1);
  }
  return found;
}

function skipWs(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    // RFC 8259 §2: the only insignificant whitespace is space, tab, LF and CR.
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return i;
    i++;
  }
}

/** The index just past the closing quote of the string starting at `i`. */
function stringEnd(s: string, i: number): number {
  let q = s.indexOf('"', i + 1);
  for (;;) {
    // A quote preceded by an odd run of backslashes is escaped.
    let b = q - 1;
    while (s.charCodeAt(b) === 92) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    q = s.indexOf('"', q + 1);
  }
}

/** The index just past the value starting at `i`. */
function valueEndAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 34 /* " */) return stringEnd(s, i);
  if (c === 123 /* { */ || c === 91 /* [ */) {
    let depth = 0;
    for (;;) {
      const d = s.charCodeAt(i);
      if (d === 34) {
        i = stringEnd(s, i);
        continue;
      }
      if (d === 123 || d === 91) depth++;
      else if (d === 125 || d === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
  }
  // A number or a literal: runs until a structural character or whitespace.
  for (;;) {
    const d = s.charCodeAt(i);
    if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9 || Number.isNaN(d)) return i;
    i++;
  }
}
