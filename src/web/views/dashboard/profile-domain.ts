/** Proving the domain of a claimed agent profile's homepage: what to publish, and the check. */
import { html, type SafeHtml } from '../../html.js';
import { csrfField, layout, type Viewer } from './layout.js';

export function profileDomainPage(data: {
  styleUrl: string;
  viewer: Viewer;
  profile: { slug: string; name: string };
  proof: { domain: string; url: string; token: string; verified: boolean };
  error?: string | null;
}): SafeHtml {
  const { proof } = data;
  const action = `/dashboard/profiles/${encodeURIComponent(data.profile.slug)}/domain`;
  return layout({
    title: `Verify ${proof.domain}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'profiles',
    body: html`<p><a href="/dashboard/profiles">← Agent profiles</a></p>
<h1>Verify ${proof.domain} for ${data.profile.name}</h1>
${
  proof.verified
    ? html`<p id="domain-verified"><span class="badge ok">✓ Verified</span> The profile says “Verified: ${proof.domain}”.</p>`
    : html`<p>Claiming showed that you published this profile, not that you run ${proof.domain}. Until you prove it, the
profile says “Claimed by its publisher” and vouches for no brand.</p>`
}
${data.error ? html`<p class="error" id="domain-error" role="alert">${data.error}</p>` : ''}
<section class="card stack">
<h2>1. Publish this file</h2>
<label for="domain-url">Address</label>
<input id="domain-url" readonly value="${proof.url}">
<label for="domain-token">Content (one line; the file may hold other lines too)</label>
<input id="domain-token" readonly value="${proof.token}">
<p class="muted">Served as plain text with status 200, directly (redirects are not followed).</p>
</section>
<section class="card">
<h2>2. Check</h2>
<form method="post" action="${action}">${csrfField(data.viewer.csrfToken)}<button type="submit" class="primary">Check ${proof.domain} now</button></form>
</section>`,
  });
}
