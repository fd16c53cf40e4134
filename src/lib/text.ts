import type { Ajv } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types/index.js';

/**
 * The one rule for text the service accepts from outside (request bodies, query strings, CSV
 * cells, form fields, the agent API): no NUL or other C0 controls (tab and newline only where a
 * field allows several lines), no DEL or C1 controls, no unpaired UTF-16 surrogates, and no
 * bidirectional overrides or isolates. Such characters break storage (PostgreSQL refuses NUL in
 * text), turn into replacement characters on the way out (lone surrogates), or make text read
 * differently from what it is (bidi overrides in names shown to others).
 */

/**
 * The server's schema keyword that marks a name to be stored in NFC. Not JSON Schema: the /v1
 * document drops it (src/http/openapi/document.ts) and says it in the field's description.
 */
export const NFC_KEYWORD = 'x-nfc';
export const NFC_DESCRIPTION = 'Stored in Unicode NFC, so a name typed composed or decomposed is one name.';

export const SAFE_TEXT_RULE = 'must not contain control characters, unpaired surrogates or bidirectional overrides';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * The same rule as a JSON Schema `pattern` (ECMA-262 source): every schema states it this way, so
 * any validator enforces it as the server does, with no custom format. A surrogate pair is also
 * spelled out as a second alternative so that a validator compiling without the `u` flag (code
 * units, not code points) still accepts astral characters and refuses only lone surrogates.
 */
const textPattern = (refused: string) =>
  `^(?:[^${refused}\\u007F-\\u009F\\uD800-\\uDFFF\\u202A-\\u202E\\u2066-\\u2069]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$`;
export const SAFE_TEXT_PATTERN = textPattern('\\u0000-\\u001F');
/** Tab, line feed and carriage return allowed. */
export const SAFE_MULTILINE_TEXT_PATTERN = textPattern('\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F');

/** The first refused character of `value` as a short description, or null when the text is acceptable. */
export function unsafeTextReason(value: string, options: { multiline?: boolean } = {}): string | null {
  // Printable ASCII, nearly all text, passes in one native regex scan (several times faster than
  // the loop below: it runs on every query string and body, e.g. a batch's 3,700 characters of ids).
  if (PRINTABLE_ASCII.test(value)) return null;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20) {
      if (options.multiline && (c === 0x09 || c === 0x0a || c === 0x0d)) continue;
      return c === 0 ? 'NUL' : `control character U+${hex(c)}`;
    }
    if (c === 0x7f || (c >= 0x80 && c <= 0x9f)) return `control character U+${hex(c)}`;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return 'an unpaired surrogate';
    }
    if (c >= 0xdc00 && c <= 0xdfff) return 'an unpaired surrogate';
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) return `bidirectional control U+${hex(c)}`;
  }
  return null;
}

const hex = (code: number) => code.toString(16).toUpperCase().padStart(4, '0');

/**
 * Registers the NFC keyword on an Ajv instance. It rewrites the validated string in place (Ajv's
 * `modifying` keywords), so the handler sees composed text.
 */
export function addNfcKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: NFC_KEYWORD,
    type: 'string',
    schemaType: 'boolean',
    modifying: true,
    errors: false,
    validate: (enabled: boolean, data: string, _schema?: unknown, ctx?: DataValidationCxt) => {
      if (enabled && ctx?.parentData !== undefined && typeof data === 'string') {
        const composed = data.normalize('NFC');
        if (composed !== data) (ctx.parentData as Record<string | number, unknown>)[ctx.parentDataProperty] = composed;
      }
      return true;
    },
  });
}
