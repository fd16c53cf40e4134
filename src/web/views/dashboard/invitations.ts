/**
 * Before a batch of mail leaves: the confirmation naming how many people get what, in which
 * language, and who is left out and why (with the box to include people invited in the last 24
 * hours); and the preview of the exact mail per language, with a test send to oneself.
 */
import { LOCALE_NAMES, LOCALES, type Locale } from '../../../i18n/index.js';
import { html, type SafeHtml } from '../../html.js';
import { csrfField, layout, type Viewer } from './layout.js';

/** The counts of a planned batch (the API's dry run). */
export interface BatchPlan {
  queued: number;
  reminders: number;
  by_language: Record<string, number>;
  skipped: { recently_invited: number; unsubscribed: number };
}

const people = (n: number) => `${n.toLocaleString('en')} ${n === 1 ? 'person' : 'people'}`;

const languageName = (locale: string) => LOCALE_NAMES[locale as Locale] ?? locale;

/** Why nobody would get a mail, in the words of what the organiser can do about it. */
function nobodyReason(plan: BatchPlan, base: string, who: string): SafeHtml {
  const { recently_invited: recent, unsubscribed } = plan.skipped;
  if (recent > 0) {
    return html`<p id="nobody-reason">Nobody new to e-mail: ${people(recent)} who ${recent === 1 ? 'has' : 'have'} not recorded
${recent === 1 ? 'was' : 'were'} e-mailed in the last 24 hours${unsubscribed > 0 ? html`, and ${people(unsubscribed)} unsubscribed` : ''}.</p>
<form method="get" action="${base}/invitations/confirm" class="row" id="include-recent">
<input type="hidden" name="who" value="${who}"><input type="hidden" name="resend" value="true">
<button type="submit">E-mail the ${people(recent)} again</button>
</form>`;
  }
  if (unsubscribed > 0)
    return html`<p id="nobody-reason">Nobody to e-mail: the ${people(unsubscribed)} chosen unsubscribed from this collection’s mail.</p>`;
  return html`<p id="nobody-reason">Nobody to e-mail: everyone chosen has recorded.</p>`;
}

export function invitationConfirmPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: { id: string; name: string };
  who: string;
  whoLabel: string;
  resend: boolean;
  plan: BatchPlan;
  /** The count confirmed before was no longer right: nothing was sent. */
  changed?: boolean;
}): SafeHtml {
  const { collection, plan } = data;
  const base = `/dashboard/collections/${collection.id}`;
  const invitations = plan.queued - plan.reminders;
  const languages = Object.entries(plan.by_language).sort(([, a], [, b]) => b - a);
  const { recently_invited: recent, unsubscribed } = plan.skipped;
  return layout({
    title: `Send e-mail: ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="${base}">← ${collection.name}</a></p>
<h1>Send e-mail</h1>
<p class="muted">${data.whoLabel}.</p>
${data.changed ? html`<p class="notice" role="status" id="count-changed">Nothing was sent: the count changed since you looked (people recorded, were added or were e-mailed). Check it again.</p>` : ''}
${
  plan.queued === 0
    ? nobodyReason(plan, base, data.who)
    : html`<section class="card stack" id="batch-plan">
<p id="batch-count"><strong>${people(plan.queued)} will get an e-mail.</strong></p>
<ul>
${invitations > 0 ? html`<li id="batch-invitations">${people(invitations)}: the invitation (<a href="${base}/invitations/preview?kind=invitation">preview</a>)</li>` : ''}
${plan.reminders > 0 ? html`<li id="batch-reminders">${people(plan.reminders)} invited before: the reminder (<a href="${base}/invitations/preview?kind=reminder">preview</a>)</li>` : ''}
</ul>
<p>In ${languages.map(([locale, n], i) => html`${i > 0 ? ', ' : ''}<a href="${base}/invitations/preview?kind=${invitations > 0 ? 'invitation' : 'reminder'}&amp;language=${locale}">${languageName(locale)}</a>: ${n.toLocaleString('en')}`)}.</p>
${recent > 0 ? html`<p id="skipped-recent">Not e-mailed: ${people(recent)} e-mailed in the last 24 hours. <a href="${base}/invitations/confirm?who=${data.who}&amp;resend=true">Include them</a></p>` : ''}
${unsubscribed > 0 ? html`<p id="skipped-unsubscribed">Not e-mailed: ${people(unsubscribed)} who unsubscribed.</p>` : ''}
<form method="post" action="${base}/invitations" class="row" id="confirm-send">
${csrfField(data.viewer.csrfToken)}
<input type="hidden" name="who" value="${data.who}">
${data.resend ? html`<input type="hidden" name="resend" value="true">` : ''}
<input type="hidden" name="expected" value="${String(plan.queued)}">
<button type="submit" class="primary">Send ${plan.queued === 1 ? '1 e-mail' : `${plan.queued.toLocaleString('en')} e-mails`}</button>
<a class="button" href="${base}">Cancel</a>
</form>
</section>`
}`,
  });
}

export function mailPreviewPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: { id: string; name: string };
  kind: 'invitation' | 'reminder';
  locale: Locale;
  mail: { subject: string; text: string; fromName: string | null; replyTo: string | null };
  sampleName: string | null;
  canSend: boolean;
  /** After a test send: where it went. */
  sentTo?: string | null;
  error?: string | null;
}): SafeHtml {
  const { collection, kind, locale, mail } = data;
  const base = `/dashboard/collections/${collection.id}`;
  const link = (k: string, l: string) => `${base}/invitations/preview?kind=${k}&language=${l}`;
  const tab = (current: boolean, href: string, label: string) =>
    current ? html`<strong aria-current="page">${label}</strong>` : html`<a href="${href}">${label}</a>`;
  return layout({
    title: `Mail preview: ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="${base}">← ${collection.name}</a></p>
<h1>Mail preview</h1>
<nav aria-label="Which mail" class="row" id="preview-kinds">${tab(kind === 'invitation', link('invitation', locale), 'Invitation')}${tab(kind === 'reminder', link('reminder', locale), 'Reminder')}</nav>
<nav aria-label="Language" class="row" id="preview-languages">${LOCALES.map((l) => tab(l === locale, link(kind, l), LOCALE_NAMES[l]))}</nav>
<p class="muted" id="preview-sample">${
      data.sampleName
        ? html`As <bdi>${data.sampleName}</bdi> will get it, the first person reading ${LOCALE_NAMES[locale]}.`
        : html`Nobody reads ${LOCALE_NAMES[locale]} yet: shown with an example name.`
    } Each person’s own record and unsubscribe links replace the example links. <a href="${base}/settings">Change the text</a></p>
${data.error ? html`<p class="error" role="alert" id="test-error">${data.error}</p>` : ''}
${data.sentTo ? html`<p class="notice" role="status" id="test-sent">The test mail is sent to <bdi>${data.sentTo}</bdi>.</p>` : ''}
<section class="card stack" id="mail-preview" lang="${locale}">
<dl class="facts">
<dt>From</dt><dd id="preview-from">${mail.fromName ?? html`<span class="muted">voicename (no sender name set)</span>`}</dd>
${mail.replyTo ? html`<dt>Reply to</dt><dd>${mail.replyTo}</dd>` : ''}
<dt>Subject</dt><dd id="preview-subject" dir="auto">${mail.subject}</dd>
</dl>
<pre id="preview-text" dir="auto" class="mail-text">${mail.text}</pre>
<p><a href="${base}/invitations/preview/mail.html?kind=${kind}&amp;language=${locale}" target="_blank" rel="noopener">Open the HTML mail</a></p>
</section>
${
  data.canSend
    ? html`<form method="post" action="${base}/invitations/test" class="row" id="test-send">
${csrfField(data.viewer.csrfToken)}
<input type="hidden" name="kind" value="${kind}"><input type="hidden" name="language" value="${locale}">
<button type="submit">Send this mail to me (${data.viewer.email})</button>
</form>`
    : ''
}`,
  });
}
