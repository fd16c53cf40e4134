/** The LTI tool's own pages: a refused launch said plainly, the Deep Linking picker, and the return to the platform. */
import { html, type SafeHtml } from '../../web/html.js';
import { errorPage, layout } from '../../web/views/dashboard/layout.js';
import type { DeepLinkPerson } from './deep-linking.js';

export function launchRefusedPage(data: {
  styleUrl: string;
  title: string;
  message: string;
  newWindowUrl?: string | null;
}): SafeHtml {
  return errorPage({
    styleUrl: data.styleUrl,
    title: data.title,
    message: data.message,
    next: data.newWindowUrl
      ? html`<p><a id="open-new-window" class="button primary" href="${data.newWindowUrl}" target="_blank" rel="noopener">Open voicename in a new window</a></p>`
      : html`<p>Go back to your course and open voicename again. If this keeps happening, tell your course’s administrator
what this page says.</p>`,
  });
}

export function deepLinkPickerPage(data: {
  styleUrl: string;
  courseTitle: string;
  sealedRequest: string;
  people: DeepLinkPerson[];
  error?: string | null;
}): SafeHtml {
  return layout({
    title: 'Insert voicename',
    styleUrl: data.styleUrl,
    body: html`<section class="card narrow">
<h1>Insert voicename into ${data.courseTitle}</h1>
${data.error ? html`<p class="error" role="alert">${data.error}</p>` : ''}
<form method="post" action="/lti/deep-link">
<input type="hidden" name="request" value="${data.sealedRequest}">
<fieldset>
<legend>What to insert</legend>
<div class="choice"><input type="radio" id="choice-roster" name="choice" value="roster" checked>
<label for="choice-roster">The course’s names: instructors see the collection, each learner their own record page</label></div>
${data.people.map(
  (person) => html`<div class="choice"><input type="radio" id="choice-${person.userId}" name="choice" value="${person.userId}">
<label for="choice-${person.userId}">${person.displayName}’s player</label></div>`,
)}
</fieldset>
${data.people.length === 0 ? html`<p class="muted">Players of people appear here once they have recorded their names.</p>` : ''}
<button type="submit" class="primary">Insert</button>
</form>
</section>`,
  });
}

export function deepLinkReturnPage(data: { styleUrl: string; scriptUrl: string; returnUrl: string; jwt: string }): SafeHtml {
  return layout({
    title: 'Back to the course',
    styleUrl: data.styleUrl,
    scripts: [data.scriptUrl],
    body: html`<section class="card narrow">
<h1>Back to the course</h1>
<form method="post" action="${data.returnUrl}" data-auto-submit>
<input type="hidden" name="JWT" value="${data.jwt}">
<p>Your choice is on its way to the course. If nothing happens, continue:</p>
<button type="submit" class="primary">Continue</button>
</form>
</section>`,
  });
}

/**
 * The pages that talk to the platform's storage (platform-storage.ts): `login` stores the state and
 * nonce there, then goes on to the platform's auth URL; `launch` reads the state back and posts it
 * with the launch's ticket. Their script (lti-storage.ts) reads what it needs from `#lti-storage`.
 */
export function platformStoragePage(data: {
  styleUrl: string;
  scriptUrl: string;
  storageTarget: string;
  platformOrigin: string;
  state: string;
  step: { kind: 'login'; nonce: string; next: string } | { kind: 'launch'; ticket: string };
}): SafeHtml {
  const step = data.step;
  return layout({
    title: 'Opening voicename',
    styleUrl: data.styleUrl,
    scripts: [data.scriptUrl],
    body: html`<section class="card narrow">
<h1>Opening voicename</h1>
<div id="lti-storage" hidden data-step="${step.kind}" data-target="${data.storageTarget}" data-origin="${data.platformOrigin}"
 data-state="${data.state}" data-nonce="${step.kind === 'login' ? step.nonce : ''}" data-next="${step.kind === 'login' ? step.next : ''}"></div>
${
  step.kind === 'login'
    ? html`<p>Going on to your course platform. If nothing happens, <a id="continue" href="${step.next}">continue</a>.</p>`
    : html`<form id="lti-complete" method="post" action="/lti/launch/complete">
<input type="hidden" name="ticket" value="${step.ticket}">
<input type="hidden" name="state" value="">
</form>
<p id="lti-storage-status" role="status">Checking this launch with your course platform…</p>`
}
</section>`,
  });
}

/** LTI Dynamic Registration: what is about to be registered where, and the one button that does it. */
export function registrationConfirmPage(data: {
  styleUrl: string;
  action: string;
  organisation: string;
  issuer: string;
  productFamily: string | null;
  openidConfiguration: string;
  registrationToken: string | undefined;
}): SafeHtml {
  return layout({
    title: 'Register voicename',
    styleUrl: data.styleUrl,
    body: html`<section class="card narrow">
<h1>Register voicename with this platform</h1>
<dl class="facts">
<dt>voicename organisation</dt><dd>${data.organisation}</dd>
<dt>Platform</dt><dd class="break">${data.issuer}${data.productFamily ? html` (${data.productFamily})` : ''}</dd>
</dl>
<p>Instructors who open voicename from this platform will join the organisation as admins, and learners will get their own record pages.</p>
<form method="post" action="${data.action}">
<input type="hidden" name="openid_configuration" value="${data.openidConfiguration}">
${data.registrationToken === undefined ? '' : html`<input type="hidden" name="registration_token" value="${data.registrationToken}">`}
<button type="submit" class="primary">Register voicename</button>
</form>
</section>`,
  });
}

/** The end of Dynamic Registration: the script asks the platform to close this window or frame. */
export function registrationDonePage(data: {
  styleUrl: string;
  scriptUrl: string;
  issuer: string;
  deploymentId: string | null;
}): SafeHtml {
  return layout({
    title: 'Registration complete',
    styleUrl: data.styleUrl,
    scripts: [data.scriptUrl],
    body: html`<section class="card narrow">
<h1>Registration complete, you can close this window</h1>
<p>voicename is registered with ${data.issuer}.</p>
${
  data.deploymentId
    ? ''
    : html`<p>The platform has not named a deployment yet: once the tool is installed, add its deployment id to the
registration on voicename’s LMS page.</p>`
}
</section>`,
  });
}

/** A refused Dynamic Registration: what went wrong, and that nothing was registered. */
export const registrationRefusedPage = (data: { styleUrl: string; title: string; message: string }): SafeHtml =>
  errorPage({
    styleUrl: data.styleUrl,
    title: data.title,
    message: data.message,
    next: html`<p>Nothing was registered. Close this window and start the registration again in the platform, or register the
platform by hand on voicename’s LMS page.</p>`,
  });
