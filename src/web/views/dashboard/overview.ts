/** The overview: what the account has, what needs attention, and how to make a first request. */
import { html, type SafeHtml } from '../../html.js';
import { actionButton, layout, type Viewer } from './layout.js';

export interface OverviewData {
  styleUrl: string;
  viewer: Viewer;
  baseUrl: string;
  activeKeys: number;
  webhooks: number;
  disabledWebhooks: { id: string; url: string }[];
  claimedProfiles: number;
  sessions: number;
  notice?: string | null;
}

export function overviewPage(data: OverviewData): SafeHtml {
  return layout({
    title: 'Overview',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'overview',
    notice: data.notice ?? null,
    body: html`<h1>Overview</h1>
${
  data.disabledWebhooks.length > 0
    ? html`<section class="alert" id="disabled-webhooks" role="alert">
<h2>${data.disabledWebhooks.length === 1 ? 'A webhook is disabled' : `${data.disabledWebhooks.length} webhooks are disabled`}</h2>
<p>Nothing is sent to ${data.disabledWebhooks.map((w, i) => html`${i > 0 ? ', ' : ''}<code>${w.url}</code>`)} until you re-enable it.
<a href="/dashboard/webhooks">Review webhooks</a></p>
</section>`
    : ''
}
<div class="tiles">
  <a class="tile" href="/dashboard/api-keys"><strong id="active-keys">${data.activeKeys}</strong> active API ${data.activeKeys === 1 ? 'key' : 'keys'}</a>
  <a class="tile" href="/dashboard/webhooks"><strong>${data.webhooks}</strong> ${data.webhooks === 1 ? 'webhook' : 'webhooks'}</a>
  <a class="tile" href="/dashboard/profiles"><strong id="claimed-profiles">${data.claimedProfiles}</strong> claimed agent ${data.claimedProfiles === 1 ? 'profile' : 'profiles'}</a>
</div>
<section class="card">
<h2>Get started</h2>
<ol>
  <li><a href="/dashboard/api-keys">Create an API key</a>.</li>
  <li>Create a collection:
<pre><code>curl ${data.baseUrl}/v1/collections \\
  -H "Authorization: Bearer $VOICENAME_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"name": "Class of 2027"}'</code></pre></li>
  <li>Register a webhook to hear when someone records their name (<code>POST /v1/webhooks</code>).</li>
</ol>
<p>API reference: <a href="/docs">${data.baseUrl}/docs</a></p>
</section>
<section class="card">
<h2>Sessions</h2>
<p>You are signed in on ${data.sessions} ${data.sessions === 1 ? 'browser' : 'browsers'}.</p>
${data.sessions > 1 ? actionButton('/dashboard/sessions/revoke-others', 'Sign out everywhere else', data.viewer.csrfToken) : ''}
</section>`,
  });
}
