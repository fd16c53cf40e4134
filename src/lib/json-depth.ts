/**
 * Nesting limit of JSON bodies, checked on the raw text before anything parses or walks it:
 * `JSON.parse`, `JSON.stringify`, Ajv and our own walkers are recursive and overflow the stack
 * on a body of a few thousand brackets (a tiny request that would otherwise be a 500).
 */

/** Objects and arrays may nest this deep (the top-level value is level 1). */
export const MAX_JSON_DEPTH = 32;

/**
 * True when `text` opens more than `limit` objects/arrays inside one another. A single pass
 * that skips string contents (brackets in strings do not count); it does not validate the JSON.
 */
export function jsonNestingExceeds(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
