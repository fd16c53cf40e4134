/** A claimed agent profile's settings: its text and links, its voice, and deleting it. */
import { html, type SafeHtml } from '../../html.js';
import { csrfField, layout, type Viewer } from './layout.js';

export interface ManagedProfile {
  slug: string;
  name: string;
  url: string;
  description: string;
  intro: string | null;
  avatar_url: string | null;
  source_url: string | null;
  voice_style: string | null;
}

export function profileManagePage(data: {
  styleUrl: string;
  viewer: Viewer;
  profile: ManagedProfile;
  voiceStyles: readonly { name: string; description: string }[];
  error?: { form: 'details' | 'voice'; message: string } | null;
  draft?: Partial<ManagedProfile>;
}): SafeHtml {
  const p = { ...data.profile, ...data.draft };
  const base = `/dashboard/profiles/${encodeURIComponent(p.slug)}`;
  const errorFor = (form: 'details' | 'voice') =>
    data.error?.form === form ? html`<p class="error" id="${form}-error" role="alert">${data.error.message}</p>` : '';
  const csrf = csrfField(data.viewer.csrfToken);
  return layout({
    title: `Manage ${p.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'profiles',
    body: html`<p><a href="/dashboard/profiles">← Agent profiles</a></p>
<h1>${p.name}</h1>
<p><a href="${p.url}">${p.url}</a></p>
<section class="card stack" id="details">
<h2>Text and links</h2>
${errorFor('details')}
<form method="post" action="${base}/details" class="stack">
${csrf}
<label for="description">Description (10 to 1000 characters)</label>
<textarea id="description" name="description" rows="4" minlength="10" maxlength="1000" required>${p.description}</textarea>
<label for="intro">Intro <span class="muted">(optional, at most 500 characters)</span></label>
<textarea id="intro" name="intro" rows="2" maxlength="500">${p.intro ?? ''}</textarea>
<label for="avatar-url">Avatar <span class="muted">(optional: an https: image URL or a path on the site)</span></label>
<input id="avatar-url" name="avatar_url" maxlength="2048" value="${p.avatar_url ?? ''}">
<label for="source-url">Homepage <span class="muted">(optional; changing its domain ends a domain verification)</span></label>
<input id="source-url" name="source_url" maxlength="2048" value="${p.source_url ?? ''}">
<div class="row"><button type="submit" class="primary">Save</button></div>
</form>
</section>
<section class="card stack" id="voice">
<h2>Voice</h2>
${errorFor('voice')}
<form method="post" action="${base}/voice" class="stack">
${csrf}
<label for="voice-style">Speak the name again in this voice</label>
<select id="voice-style" name="voice_style">${data.voiceStyles.map(
      (style) =>
        html`<option value="${style.name}"${(p.voice_style ?? 'neutral') === style.name ? html` selected` : ''}>${style.name}: ${style.description}</option>`,
    )}</select>
<div class="row"><button type="submit">Make new audio</button></div>
</form>
</section>
<section class="card">
<h2>Delete</h2>
<p>The page, its machine-readable profile and its audio go; their addresses answer 410 Gone and the name stays reserved.</p>
<form method="post" action="${base}/delete">${csrf}<button type="submit" class="danger-link">Delete this profile</button></form>
</section>`,
  });
}
