/**
 * The mail people of a collection get: an invitation, a reminder or a re-record request, as a
 * plain-text part and an HTML part saying the same. The organiser's message template is plain
 * text with `{{placeholders}}`; in the HTML part its text and every value are escaped, and the
 * record link becomes a link.
 */
import { formatDay, type Locale, textDirection, translator } from '../../i18n/index.js';
import { html, isolate, type SafeHtml } from '../html.js';

export type InvitationMailKind = 'invitation' | 'reminder' | 'rerecord';

export interface InvitationMailInput {
  kind: InvitationMailKind;
  locale: Locale;
  person: { first_name: string; display_name: string };
  collection: string;
  organisation: string | null;
  /** `YYYY-MM-DD` or null. */
  deadline: string | null;
  privacyNote: string | null;
  logoUrl: string | null;
  /** `#rrggbb` with AA contrast for white text (src/features/collections/brand-color.ts), or null. */
  brandColor: string | null;
  /** The organiser's text for an invitation or a reminder; null: the language's default text. */
  template: string | null;
  /** The organiser's note of a re-record request. */
  note: string | null;
  recordUrl: string;
  unsubscribeUrl: string;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The record button of a collection without a brand colour (white text on it: 6.6:1). */
const DEFAULT_BUTTON_COLOR = '#1f4fd1';
const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

/** The template's paragraphs (blank-line separated), each a list of lines, each a list of text and values. */
function fillTemplate(template: string, values: Record<string, string>): Array<Array<Array<{ text: string; isLink: boolean }>>> {
  return template
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .filter((paragraph) => paragraph.trim() !== '')
    .map((paragraph) =>
      paragraph.split('\n').map((line) => {
        const parts: Array<{ text: string; isLink: boolean }> = [];
        let last = 0;
        for (const match of line.matchAll(PLACEHOLDER)) {
          parts.push({ text: line.slice(last, match.index), isLink: false });
          const name = match[1] as string;
          parts.push({ text: values[name] ?? match[0], isLink: name === 'record_url' });
          last = (match.index ?? 0) + match[0].length;
        }
        parts.push({ text: line.slice(last), isLink: false });
        return parts;
      }),
    );
}

export function invitationMail(input: InvitationMailInput): RenderedMail {
  const t = translator(input.locale, 'mail');
  const deadline = input.deadline ? formatDay(input.locale, input.deadline) : null;
  // Names and the collection are the organiser's text inside this language's sentences.
  const direction = textDirection(input.locale);
  const own = (text: string) => isolate(text, direction);
  const values = {
    first_name: own(input.person.first_name),
    display_name: own(input.person.display_name),
    collection: own(input.collection),
    deadline: deadline ?? '',
    record_url: input.recordUrl,
  };
  const subject = t(`${input.kind}_subject`, { collection: own(input.collection) });
  const greeting = t('greeting', { first_name: own(input.person.first_name) });
  const body =
    input.kind !== 'rerecord' && input.template !== null
      ? fillTemplate(input.template, values)
      : [
          [[{ text: greeting, isLink: false }]],
          [[{ text: t(`${input.kind}_body`, { collection: own(input.collection) }), isLink: false }]],
        ];
  const deadlineLine = deadline ? t('deadline', { deadline }) : null;
  const privacy = input.privacyNote ?? t('privacy_default');
  const sentFor = t('sent_for', { organisation: own(input.organisation ?? input.collection) });

  const textParagraphs = [
    ...body.map((lines) => lines.map((parts) => parts.map((part) => part.text).join('')).join('\n')),
    ...(input.note ? [`> ${input.note.replace(/\n/g, '\n> ')}`] : []),
    ...(deadlineLine ? [deadlineLine] : []),
    `${t('record_button')}: ${input.recordUrl}`,
    privacy,
    `-- \n${sentFor}\n${t('unsubscribe_line', { url: input.unsubscribeUrl })}`,
  ];
  const text = `${textParagraphs.join('\n\n')}\n`;

  // The organiser's own message may be in another script than the mail: its paragraphs take their direction from their text.
  const organisersText = input.kind === 'invitation' && input.template !== null;
  const paragraph = (lines: Array<Array<{ text: string; isLink: boolean }>>): SafeHtml =>
    html`<p style="margin:0 0 16px"${organisersText ? html` dir="auto"` : ''}>${lines.map(
      (parts, i) =>
        html`${i > 0 ? html`<br>` : ''}${parts.map((part) => (part.isLink ? html`<a href="${part.text}">${part.text}</a>` : part.text))}`,
    )}</p>`;
  const markup = html`<!doctype html>
<html lang="${input.locale}" dir="${textDirection(input.locale)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${subject}</title></head>
<body style="margin:0;padding:24px;background:#f6f7f9;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d2330">
<div style="max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px">
${input.logoUrl ? html`<p style="margin:0 0 16px"><img src="${input.logoUrl}" alt="${input.organisation ?? input.collection}" height="48" style="max-height:48px"></p>` : ''}
${body.map(paragraph)}
${input.note ? html`<blockquote dir="auto" style="margin:0 0 16px;padding:8px 12px;border-inline-start:4px solid #c9ced8">${input.note}</blockquote>` : ''}
${deadlineLine ? html`<p style="margin:0 0 16px"><strong>${deadlineLine}</strong></p>` : ''}
<p style="margin:24px 0"><a href="${input.recordUrl}" style="display:inline-block;background:${input.brandColor ?? DEFAULT_BUTTON_COLOR};color:#fff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${t('record_button')}</a></p>
<p style="margin:0 0 16px;color:#4a5263;font-size:14px"${input.privacyNote ? html` dir="auto"` : ''}>${privacy}</p>
</div>
<p style="max-width:560px;margin:16px auto 0;color:#4a5263;font-size:13px">${sentFor} <a href="${input.unsubscribeUrl}" style="color:#4a5263">${t('unsubscribe')}</a></p>
</body>
</html>
`;
  return { subject, text, html: markup.value };
}
