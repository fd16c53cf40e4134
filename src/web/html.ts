/**
 * HTML that is escaped by construction. Views are functions `(data) => SafeHtml` written with
 * the `html` tag: every interpolated value is escaped unless it is already `SafeHtml` (another
 * fragment built the same way). `unsafeRaw` exists for trusted constant markup only.
 */

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

const SPECIAL = /[&<>"'`]/;

// Most text has nothing to escape: testing first spares a copy (a 5,000-name reader escapes ~50,000 values).
export const escapeHtml = (value: string): string =>
  SPECIAL.test(value) ? value.replace(/[&<>"'`]/g, (c) => ESCAPES[c] as string) : value;

type Interpolation = SafeHtml | string | number | boolean | null | undefined | Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) {
    let out = '';
    for (const item of value) out += render(item);
    return out;
  }
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/** Trusted markup that must not be escaped (constants only, never user data). */
export const unsafeRaw = (markup: string): SafeHtml => new SafeHtml(markup);

/**
 * JSON for a `<script type="application/ld+json">` or data island: `<`, `>`, `&` and line
 * separators are escaped so the content can never close the script element.
 */
export const jsonForScript = (value: unknown): SafeHtml =>
  new SafeHtml(
    JSON.stringify(value)
      .replace(/</g, '\\u003c')
      .replace(/>/g, '\\u003e')
      .replace(/&/g, '\\u0026')
      .replace(/\u2028/g, '\\u2028')
      .replace(/\u2029/g, '\\u2029'),
  );

/**
 * User text (a name, a collection, an organisation) inside a translated sentence where markup
 * cannot go: a title, an attribute, a mail's subject or plain text. In a right-to-left page the
 * Unicode isolates (FSI … PDI, what `<bdi>` does in markup) keep "Class of 2027" and its
 * punctuation in their own order inside the Arabic sentence. Left-to-right text is returned as
 * it is, so titles and subjects there carry no invisible characters into copies and searches.
 */
export const isolate = (text: string, direction: 'ltr' | 'rtl'): string => (direction === 'rtl' ? `\u2068${text}\u2069` : text);

/**
 * Placeholder for markup inside a translated sentence: translate with `{ name: SLOT }`, then
 * `withSlot(text, fragment)` puts the (escaped-by-construction) fragment where the translation
 * placed it, so word order stays the translator's.
 */
export const SLOT = '\u0000slot\u0000';

export function withSlot(text: string, fragment: SafeHtml): SafeHtml {
  const at = text.indexOf(SLOT);
  if (at < 0) return html`${text}`;
  return html`${text.slice(0, at)}${fragment}${text.slice(at + SLOT.length)}`;
}
