/**
 * The page of a mail's unsubscribe link (`/u/<token>`). Opening it only asks: link scanners
 * and previews fetch links, so the change is a POST (the page's button, or a mail client's
 * RFC 8058 one-click request).
 */
import { type Locale, translator } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';
import { personPageLayout } from './recorder.js';

export interface UnsubscribePageData {
  locale: Locale;
  styleUrl: string;
  /** null: the token is not (or no longer) valid. */
  subject: { collection: string; email: string; unsubscribed: boolean } | null;
  actionUrl: string;
}

export function unsubscribePage(data: UnsubscribePageData): SafeHtml {
  const t = translator(data.locale, 'mail');
  const { subject } = data;
  const title = !subject
    ? t('unsubscribe_invalid')
    : subject.unsubscribed
      ? t('unsubscribed_title')
      : t('unsubscribe_title', { collection: subject.collection });
  const body = !subject
    ? html`<h1>${title}</h1>`
    : subject.unsubscribed
      ? html`<h1>${title}</h1><p>${t('unsubscribed_body', { collection: subject.collection })}</p><p>${t('unsubscribe_keeps')}</p>`
      : html`<h1>${title}</h1>
<p>${t('unsubscribe_question', { collection: subject.collection, email: subject.email })}</p>
<form method="post" action="${data.actionUrl}"><button type="submit" class="primary">${t('unsubscribe')}</button></form>
<p>${t('unsubscribe_keeps')}</p>`;
  return personPageLayout(data.locale, title, data.styleUrl, html`<main class="recorder">${body}</main>`);
}
