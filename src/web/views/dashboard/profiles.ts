/** Agent profiles: the claim form and the account's claimed profiles. */
import { html, type SafeHtml } from '../../html.js';
import { csrfField, layout, type Viewer, when } from './layout.js';

export interface ProfileItem {
  slug: string;
  name: string;
  entity_type: string;
  visibility: string;
  claimed_at: string | null;
  url: string;
  source_domain: string | null;
  verified_domain: string | null;
}

export function profilesPage(data: {
  styleUrl: string;
  viewer: Viewer;
  profiles: ProfileItem[];
  siteUrl: string;
  notice?: string | null;
  error?: string | null;
  profileInput?: string;
}): SafeHtml {
  const rows = data.profiles.map(
    (p) => html`<tr data-slug="${p.slug}">
  <td><a href="${p.url}">${p.name}</a><br><span class="muted"><code>/e/${p.slug}</code></span><br><a href="/dashboard/profiles/${encodeURIComponent(p.slug)}/manage">Manage…</a></td>
  <td>${p.entity_type}</td>
  <td>
    <form method="post" action="/dashboard/profiles/${p.slug}/visibility" class="inline">
      ${csrfField(data.viewer.csrfToken)}
      <label class="visually-hidden" for="visibility-${p.slug}">Visibility of ${p.name}</label>
      <select id="visibility-${p.slug}" name="visibility">
        <option value="public" ${p.visibility === 'public' ? 'selected' : ''}>public</option>
        <option value="unlisted" ${p.visibility === 'unlisted' ? 'selected' : ''}>unlisted (noindex)</option>
      </select>
      <button type="submit">Save</button>
    </form>
  </td>
  <td><span class="badge ok">Claimed</span></td>
  <td class="domain">${
    p.verified_domain
      ? html`<span class="badge ok">✓ ${p.verified_domain}</span>`
      : p.source_domain
        ? html`<a href="/dashboard/profiles/${encodeURIComponent(p.slug)}/domain">Verify ${p.source_domain}…</a>`
        : html`<span class="muted">No homepage</span>`
  }</td>
  <td>${when(p.claimed_at)}</td>
</tr>`,
  );
  return layout({
    title: 'Agent profiles',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'profiles',
    notice: data.notice ?? null,
    body: html`<h1>Agent profiles</h1>
<p>Agents publish profiles at <code>${data.siteUrl}/e/&lt;name&gt;</code> by paying for them; a new profile is <em>unclaimed and unverified</em>.
Claim one to show that a person stands behind it: you prove you control the agent with the <code>deletion_token</code> from the receipt the agent received when it paid.</p>
<section class="card">
<h2>Claim a profile</h2>
<form method="post" action="/dashboard/profiles/claim" class="stack">
  ${csrfField(data.viewer.csrfToken)}
  <label for="profile">Profile URL or name in the URL</label>
  <input id="profile" name="profile" required maxlength="300" autocomplete="off" spellcheck="false"
    placeholder="${data.siteUrl}/e/my-agent" value="${data.profileInput ?? ''}">
  <label for="deletion-token">Deletion token from the receipt</label>
  <input id="deletion-token" name="deletion_token" required maxlength="100" autocomplete="off" spellcheck="false"
    placeholder="e.g. 3f1c9a7e-…" ${data.error ? html`aria-invalid="true" aria-describedby="claim-error"` : ''}>
  ${data.error ? html`<p class="error" id="claim-error">${data.error}</p>` : ''}
  <button type="submit" class="primary">Claim profile</button>
</form>
<p class="muted">The token is only compared with the hash we keep; it still works for deleting the profile afterwards, so keep it safe.</p>
</section>
<h2>Your profiles</h2>
${
  data.profiles.length === 0
    ? html`<p class="empty" id="no-profiles">You have not claimed any profile yet.</p>`
    : html`<table class="list" id="profiles">
<thead><tr><th>Profile</th><th>Type</th><th>Visibility</th><th>Status</th><th>Domain</th><th>Claimed</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}`,
  });
}
