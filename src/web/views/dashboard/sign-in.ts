/** Sign-in pages: ask for a link, "check your e-mail", confirm a link opened elsewhere, development mailbox. */
import { html, type SafeHtml } from '../../html.js';
import { csrfField, layout, when } from './layout.js';

export function signInPage(data: {
  styleUrl: string;
  csrfToken: string;
  email?: string;
  error?: string | null;
  notice?: string | null;
  /** The break-glass form: always an e-mailed link, never the organisation's identity provider. */
  linkOnly?: boolean;
}): SafeHtml {
  return layout({
    title: 'Sign in',
    styleUrl: data.styleUrl,
    notice: data.notice ?? null,
    body: html`<section class="card narrow">
<h1>Sign in to the developer dashboard</h1>
<p>Enter your e-mail address and we will send you a sign-in link. No password needed; your account is created the first time you sign in.
If your organisation uses single sign-on, you continue at its identity provider instead.</p>
<form method="post" action="/dashboard/sign-in" class="stack">
  ${csrfField(data.csrfToken)}${data.linkOnly ? html`<input type="hidden" name="method" value="link">` : ''}
  <label for="email">E-mail address</label>
  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${data.email ?? ''}"
    ${data.error ? html`aria-invalid="true" aria-describedby="email-error"` : ''} autofocus>
  ${data.error ? html`<p class="error" id="email-error">${data.error}</p>` : ''}
  <button type="submit" class="primary">Send sign-in link</button>
</form>
</section>`,
  });
}

export function checkEmailPage(data: { styleUrl: string; email: string; mailboxUrl: string | null }): SafeHtml {
  return layout({
    title: 'Check your e-mail',
    styleUrl: data.styleUrl,
    body: html`<section class="card narrow">
<h1>Check your e-mail</h1>
<p id="check-email">If <strong>${data.email}</strong> can receive mail, a sign-in link is on its way. It works once, within 15 minutes. After a few requests in an hour no more mail is sent: the links already sent keep working, so open the newest one.</p>
<p class="muted">Open the link in this browser to sign in straight away. Nothing arrived? Check your spam folder, or <a href="/dashboard/sign-in">ask for another link</a>.</p>
${
  data.mailboxUrl
    ? html`<p class="dev"><strong>Development mode:</strong> no mail server is configured, so the message is in the server log and in the
<a id="dev-mailbox" href="${data.mailboxUrl}">development mailbox</a>.</p>`
    : ''
}
</section>`,
  });
}

export function confirmSignInPage(data: { styleUrl: string; email: string; action: string; csrfToken: string }): SafeHtml {
  return layout({
    title: 'Confirm sign-in',
    styleUrl: data.styleUrl,
    body: html`<section class="card narrow">
<h1>Sign in as ${data.email}?</h1>
<p>This link was asked for in another browser or on another device. Sign in here only if you asked for it yourself.</p>
<form method="post" action="${data.action}" class="stack">
  ${csrfField(data.csrfToken)}
  <button type="submit" class="primary" id="confirm-sign-in">Sign in as ${data.email}</button>
</form>
<p class="muted">Did not ask for a link? Close this page; nobody is signed in until the button is pressed.</p>
</section>`,
  });
}

export function devMailboxPage(data: {
  styleUrl: string;
  email: string;
  message: { subject: string; text: string; sent_at: string } | undefined;
}): SafeHtml {
  // Links in the plain-text body become clickable; everything else stays text (escaped).
  const body = data.message
    ? data.message.text
        .split(/(https?:\/\/\S+)/)
        .map((part, i) => (i % 2 === 1 ? html`<a class="mail-link" href="${part}">${part}</a>` : html`${part}`))
    : [];
  return layout({
    title: 'Development mailbox',
    styleUrl: data.styleUrl,
    body: html`<section class="card narrow">
<h1>Development mailbox</h1>
<p class="dev">Outside production, with no SMTP_URL, mail is written to the server log and the last message to each address is kept here.</p>
${
  data.message
    ? html`<article class="mail">
<p><strong>To:</strong> ${data.email}<br><strong>Subject:</strong> ${data.message.subject}<br><strong>Sent:</strong> ${when(data.message.sent_at)}</p>
<pre>${body}</pre>
</article>`
    : html`<p id="mailbox-empty">No message to ${data.email} yet.</p>`
}
</section>`,
  });
}

/**
 * The hand-off to an organisation's identity provider after the sign-in form. Not a redirect: the
 * dashboard's CSP allows forms to post only to this origin (`form-action 'self'`), and browsers
 * apply that to the redirects that follow a form too; a page that moves on by itself is not a form.
 */
export function ssoHandOffPage(data: { styleUrl: string; url: string }): SafeHtml {
  return layout({
    title: 'Continue to your organisation’s sign-in',
    styleUrl: data.styleUrl,
    refreshTo: data.url,
    body: html`<section class="card narrow">
<h1>Continue to your organisation’s sign-in</h1>
<p>Your organisation signs in to voicename through its identity provider (single sign-on).</p>
<p><a id="sso-continue" class="button primary" href="${data.url}">Continue</a></p>
</section>`,
  });
}
