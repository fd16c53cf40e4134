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
  /** Live collections of the account. */
  collections: number;
  sessions: number;
  notice?: string | null;
}

const gettingStarted = (baseUrl: string): SafeHtml => html`<section class="card" id="get-started">
<h2>Get started</h2>
<ol>
  <li><a href="/dashboard/collections/new">Create a collection</a> for the people whose names you need, and add them.</li>
  <li>Send each person their record link; watch the progress on the collection's page.</li>
  <li>To work from your own systems, <a href="/dashboard/api-keys">create an API key</a> and create collections with the API:
<pre><code>curl ${baseUrl}/v1/collections \\
  -H "Authorization: Bearer $VOICENAME_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"name": "Class of 2027"}'</code></pre></li>
</ol>
<p>API reference: <a href="/docs">${baseUrl}/docs</a></p>
</section>`;

const nextSteps = (baseUrl: string): SafeHtml => html`<section class="card" id="next-steps">
<h2>Your collections</h2>
<p><a href="/dashboard/collections">See every collection and how many people have recorded</a>, or <a href="/dashboard/collections/new">create another</a>.</p>
<p>Register a webhook to hear when someone records their name (<code>POST /v1/webhooks</code>). API reference: <a href="/docs">${baseUrl}/docs</a></p>
</section>`;

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
  <a class="tile" href="/dashboard/collections"><strong id="collection-count">${data.collections}</strong> ${data.collections === 1 ? 'collection' : 'collections'}</a>
  <a class="tile" href="/dashboard/api-keys"><strong id="active-keys">${data.activeKeys}</strong> active API ${data.activeKeys === 1 ? 'key' : 'keys'}</a>
  <a class="tile" href="/dashboard/webhooks"><strong>${data.webhooks}</strong> ${data.webhooks === 1 ? 'webhook' : 'webhooks'}</a>
  <a class="tile" href="/dashboard/profiles"><strong id="claimed-profiles">${data.claimedProfiles}</strong> claimed agent ${data.claimedProfiles === 1 ? 'profile' : 'profiles'}</a>
</div>
${data.collections === 0 ? gettingStarted(data.baseUrl) : nextSteps(data.baseUrl)}
<section class="card">
<h2>Sessions</h2>
<p>You are signed in on ${data.sessions} ${data.sessions === 1 ? 'browser' : 'browsers'}.</p>
${data.sessions > 1 ? actionButton('/dashboard/sessions/revoke-others', 'Sign out everywhere else', data.viewer.csrfToken) : ''}
</section>`,
  });
}
