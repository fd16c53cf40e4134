/**
 * The organisation's LMS page: the tool's URLs to paste into the learning platform, the
 * platforms registered (LTI 1.3), and the form that registers one from what the platform shows.
 */
import { html, type SafeHtml } from '../../html.js';
import { confirmationPage, csrfField, layout, type Viewer, when } from './layout.js';

export interface LtiRegistrationView {
  id: string;
  issuer: string;
  clientId: string;
  deploymentIds: string[];
  authUrl: string;
  tokenUrl: string;
  jwksUrl: string;
  createdAt: string;
}

export interface LtiRegistrationLinkView {
  id: string;
  prefix: string;
  createdBy: string;
  expiresAt: string;
}

export type LtiFormInput = Record<'issuer' | 'client_id' | 'deployment_ids' | 'auth_url' | 'token_url' | 'jwks_url', string>;

export interface LtiPageData {
  styleUrl: string;
  viewer: Viewer;
  notice: string | null;
  toolUrls: { login: string; launch: string; jwks: string; deepLinking: string };
  registrations: LtiRegistrationView[];
  /** Unused Dynamic Registration URLs (their secrets are shown only when made). */
  registrationLinks: LtiRegistrationLinkView[];
  input: LtiFormInput;
  error: { field: string; message: string } | null;
}

const FIELDS: { name: keyof LtiFormInput; label: string; hint: string; multiline?: boolean }[] = [
  { name: 'issuer', label: 'Platform issuer', hint: 'Canvas: https://canvas.instructure.com; Moodle: the site’s address.' },
  { name: 'client_id', label: 'Client id', hint: 'The id the platform gave the tool (Canvas: the developer key’s number).' },
  {
    name: 'deployment_ids',
    label: 'Deployment ids',
    hint: 'One per line, or separated by commas. Launches from other deployments are refused.',
    multiline: true,
  },
  {
    name: 'auth_url',
    label: 'OIDC auth URL',
    hint: 'Where the platform authenticates a launch (Moodle: “Authentication request URL”).',
  },
  { name: 'token_url', label: 'Token URL', hint: 'The platform’s OAuth 2 access token URL (for the course roster).' },
  { name: 'jwks_url', label: 'Key set URL', hint: 'The platform’s public keys (JWKS).' },
];

function field(data: LtiPageData, spec: (typeof FIELDS)[number]): SafeHtml {
  const id = `lti-${spec.name}`;
  const error = data.error?.field === spec.name ? data.error.message : null;
  const describedBy = error ? `${id}-hint ${id}-error` : `${id}-hint`;
  const value = data.input[spec.name];
  const control = spec.multiline
    ? html`<textarea id="${id}" name="${spec.name}" rows="3" aria-describedby="${describedBy}"${error ? html` aria-invalid="true"` : ''}>${value}</textarea>`
    : html`<input id="${id}" name="${spec.name}" value="${value}" aria-describedby="${describedBy}"${error ? html` aria-invalid="true"` : ''}>`;
  return html`<div class="field">
<label for="${id}">${spec.label}</label>
${control}
<p class="hint" id="${id}-hint">${spec.hint}</p>
${error ? html`<p class="error" id="${id}-error">${error}</p>` : ''}
</div>`;
}

function registrationRow(r: LtiRegistrationView): SafeHtml {
  return html`<tr>
<td data-label="Issuer" class="break">${r.issuer}</td>
<td data-label="Client id" class="break">${r.clientId}</td>
<td data-label="Deployments" class="break">${r.deploymentIds.join(', ')}</td>
<td data-label="Registered">${when(r.createdAt)}</td>
<td data-label="Actions"><a href="/dashboard/lti/${r.id}/edit">Edit<span class="visually-hidden"> ${r.issuer}</span></a>
<a href="/dashboard/lti/${r.id}/delete">Remove<span class="visually-hidden"> ${r.issuer}</span></a></td>
</tr>`;
}

export function ltiPage(data: LtiPageData): SafeHtml {
  const urls = data.toolUrls;
  const formError = data.error && !FIELDS.some((f) => f.name === data.error?.field) ? data.error.message : null;
  return layout({
    title: 'LMS (LTI 1.3)',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'lti',
    notice: data.notice,
    body: html`<h1>LMS (LTI 1.3)</h1>
<p>Add voicename to a course in Canvas, Moodle or another LTI 1.3 platform: instructors land in the course’s
collection, learners on their own record page, and the course’s roster is kept in step.
<a href="/docs/lti">How to set it up</a>.</p>
<section class="card" aria-labelledby="tool-urls">
<h2 id="tool-urls">voicename’s addresses, for the platform</h2>
<dl class="facts">
<dt>Login initiation URL</dt><dd class="break"><code id="tool-login-url">${urls.login}</code></dd>
<dt>Launch (redirect) URL</dt><dd class="break"><code id="tool-launch-url">${urls.launch}</code></dd>
<dt>Deep linking URL</dt><dd class="break"><code id="tool-deep-linking-url">${urls.deepLinking}</code></dd>
<dt>Public key set (JWKS) URL</dt><dd class="break"><code id="tool-jwks-url">${urls.jwks}</code></dd>
</dl>
</section>
<section aria-labelledby="registered">
<h2 id="registered">Registered platforms</h2>
${
  data.registrations.length === 0
    ? html`<p class="muted">No platform is registered yet.</p>`
    : html`<table class="stack">
<thead><tr><th scope="col">Issuer</th><th scope="col">Client id</th><th scope="col">Deployments</th><th scope="col">Registered</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${data.registrations.map((r) => registrationRow(r))}</tbody>
</table>`
}
</section>
<section class="card" aria-labelledby="dynamic-registration">
<h2 id="dynamic-registration">Add by Dynamic Registration</h2>
<p>For platforms that register tools from a URL (Canvas: Developer Keys, + LTI Registration; Moodle: Manage tools, Tool URL).
The URL works once, for 7 days, and only for this organisation.</p>
${
  data.registrationLinks.length === 0
    ? ''
    : html`<table class="stack">
<thead><tr><th scope="col">Unused URL</th><th scope="col">Made by</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${data.registrationLinks.map(
        (link) => html`<tr>
<td data-label="Unused URL"><code>${link.prefix}…</code></td>
<td data-label="Made by" class="break">${link.createdBy}</td>
<td data-label="Expires">${when(link.expiresAt)}</td>
<td data-label="Actions"><a href="/dashboard/lti/registration-urls/${link.id}/revoke">Revoke<span class="visually-hidden"> ${link.prefix}</span></a></td>
</tr>`,
      )}</tbody>
</table>`
}
<form method="post" action="/dashboard/lti/registration-urls">
${csrfField(data.viewer.csrfToken)}
<button type="submit">Make a registration URL</button>
</form>
</section>
<section class="card" aria-labelledby="register">
<h2 id="register">Register a platform by hand</h2>
${formError ? html`<p class="error" role="alert">${formError}</p>` : ''}
<form method="post" action="/dashboard/lti" novalidate>
${csrfField(data.viewer.csrfToken)}
${FIELDS.map((spec) => field(data, spec))}
<button type="submit" class="primary">Register</button>
</form>
</section>`,
  });
}

/** Editing one registration: the same fields, saved over it (a new deployment id, moved URLs). */
export function ltiEditPage(data: {
  styleUrl: string;
  viewer: Viewer;
  id: string;
  input: LtiFormInput;
  error: { field: string; message: string } | null;
}): SafeHtml {
  const pageData = {
    ...data,
    notice: null,
    registrations: [],
    registrationLinks: [],
    toolUrls: { login: '', launch: '', jwks: '', deepLinking: '' },
  };
  const formError = data.error && !FIELDS.some((f) => f.name === data.error?.field) ? data.error.message : null;
  return layout({
    title: 'Edit platform',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'lti',
    body: html`<section class="card narrow">
<h1>Edit platform</h1>
${formError ? html`<p class="error" role="alert">${formError}</p>` : ''}
<form method="post" action="/dashboard/lti/${data.id}" novalidate>
${csrfField(data.viewer.csrfToken)}
${FIELDS.map((spec) => field(pageData, spec))}
<div class="row"><button type="submit" class="primary">Save</button> <a href="/dashboard/lti" class="button">Cancel</a></div>
</form>
</section>`,
  });
}

export const ltiDeletePage = (data: {
  styleUrl: string;
  viewer: Viewer;
  id: string;
  issuer: string;
  clientId: string;
}): SafeHtml =>
  confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'lti',
    title: 'Remove platform',
    heading: html`Remove ${data.issuer}?`,
    details: html`<p>Launches from this platform (client id ${data.clientId}) are refused from now on. The collections of its
courses, and the people and recordings in them, stay.</p>`,
    action: `/dashboard/lti/${data.id}/delete`,
    actionLabel: 'Remove platform',
    tone: 'danger',
    cancelHref: '/dashboard/lti',
  });

/** A new Dynamic Registration URL: shown once (only its hash is kept). */
export function ltiRegistrationUrlPage(data: { styleUrl: string; viewer: Viewer; url: string; expiresAt: string }): SafeHtml {
  return layout({
    title: 'Registration URL',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'lti',
    body: html`<section class="card">
<h1>Your registration URL</h1>
<p class="warning"><strong>Copy it now.</strong> This is the only time it is shown. It registers one platform with this
organisation, until ${when(data.expiresAt)}; anyone who has it can do that, so paste it only into your platform.</p>
<label for="registration-url">Registration URL</label>
<input id="registration-url" class="secret" readonly value="${data.url}" spellcheck="false" autocomplete="off">
<p>Canvas: Admin, Developer Keys, + Developer Key, + LTI Registration. Moodle: Site administration, Plugins, Manage tools,
Tool URL. <a href="/docs/lti#dynamic-registration">Step by step</a>.</p>
<p><a href="/dashboard/lti" class="button">I have copied it</a></p>
</section>`,
  });
}

export const ltiRevokeRegistrationUrlPage = (data: {
  styleUrl: string;
  viewer: Viewer;
  link: LtiRegistrationLinkView;
}): SafeHtml =>
  confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'lti',
    title: 'Revoke registration URL',
    heading: html`Revoke the registration URL ${data.link.prefix}…?`,
    details: html`<p>A platform given this URL can no longer register with it. Platforms it already registered stay.</p>`,
    action: `/dashboard/lti/registration-urls/${data.link.id}/revoke`,
    actionLabel: 'Revoke URL',
    tone: 'danger',
    cancelHref: '/dashboard/lti',
  });
