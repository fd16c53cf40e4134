/**
 * One person of a collection: hear the recording, phonetic spelling, the play and record links
 * (selectable text; a small script adds copy buttons), and the two destructive actions, each
 * behind its own confirmation page. The record link lets anyone record for the person, so only
 * members who may change things (admins and owners) see it.
 */
import { isLocale, LOCALE_NAMES } from '../../../i18n/index.js';
import { html, type SafeHtml } from '../../html.js';
import { type CollectionItem, type FormError, formErrorBox } from './collections.js';
import { canChange, confirmationPage, csrfField, layout, type Viewer, when } from './layout.js';
import { type InvitationState, invitationBadge } from './people.js';
import { MAX_REVIEW_NOTE, type RecordingStatus, statusBadge } from './recording-status.js';
import { type GuideFormState, guideSection, type NameLanguages, type PersonGuide } from './person-guide.js';

export interface PersonDetail {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  display_name: string;
  preferred_name: string | null;
  pronouns: string | null;
  phonetic_spelling: string | null;
  external_id: string | null;
  /** The person's own language of mail and record page; null: the collection's. */
  language: string | null;
  has_recording: boolean;
  recording_status: RecordingStatus;
  review_note: string | null;
  record_url: string;
  invitation: InvitationState;
  created_at: string;
  custom: { label: string; value: string }[];
  /** Who last wrote each field (the API's `field_sources`). */
  field_sources: Record<string, { source: string; at: string }>;
  guide: PersonGuide;
  languages: NameLanguages;
}

/** "Set by them" beside a value the person corrected on their record page (imports keep it). */
function setByThem(person: PersonDetail, field: string): SafeHtml {
  const source = person.field_sources[field];
  if (source?.source !== 'person') return html``;
  return html` <span class="badge" title="Set by ${person.display_name} on ${source.at.slice(0, 10)}; imports keep it">set by them</span>`;
}

export interface PersonRecording {
  audioUrl: string;
  playLink: string;
  durationSeconds: number;
  recordedAt: string;
}

/** A link shown as selectable text in a read-only field, with a copy button the script reveals. */
const copyableLink = (id: string, label: string, value: string): SafeHtml => html`<div class="copyable">
<label for="${id}">${label}</label>
<div class="copy-row"><input id="${id}" class="link-text" readonly value="${value}" spellcheck="false">
<button type="button" data-copy="${id}" hidden>Copy</button></div>
</div>`;

export function personPage(data: {
  styleUrl: string;
  scriptUrl: string;
  viewer: Viewer;
  collection: CollectionItem & { review_required: boolean };
  person: PersonDetail;
  recording: PersonRecording | null;
  notice?: string | null;
  /** A refused review, with the note as typed. */
  reviewError?: FormError | null;
  noteDraft?: string;
  /** A refused guide or languages form, with what was typed. */
  guideState?: GuideFormState | null;
}): SafeHtml {
  const { collection, person, recording } = data;
  const admin = canChange(data.viewer);
  const base = `/dashboard/collections/${collection.id}/people/${person.id}`;
  return layout({
    title: person.display_name,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    notice: data.notice ?? null,
    scripts: [data.scriptUrl],
    body: html`<p><a href="/dashboard/collections/${collection.id}">← ${collection.name}</a></p>
<h1 id="person-name">${person.display_name}</h1>
${recording && admin ? '' : formErrorBox(data.reviewError)}
<dl class="facts">
  ${person.preferred_name ? html`<dt>Preferred name</dt><dd>${person.preferred_name}${setByThem(person, 'preferred_name')}</dd>` : ''}
  ${person.pronouns ? html`<dt>Pronouns</dt><dd>${person.pronouns}${setByThem(person, 'pronouns')}</dd>` : ''}
  <dt>Phonetic spelling</dt><dd id="phonetic">${person.phonetic_spelling ?? html`<span class="muted">None given</span>`}${setByThem(person, 'phonetic_spelling')}</dd>
  <dt>First name</dt><dd>${person.first_name}</dd>
  <dt>Last name</dt><dd>${person.last_name === '' ? html`<span class="muted">None</span>` : person.last_name}</dd>
  <dt>E-mail</dt><dd class="email">${person.email}</dd>
  <dt>Mail and record page in</dt><dd id="person-language">${isLocale(person.language) ? html`${LOCALE_NAMES[person.language]}${setByThem(person, 'language')}` : html`<span class="muted">The collection’s language</span>`}</dd>
  ${person.external_id ? html`<dt>Your id</dt><dd><code>${person.external_id}</code></dd>` : ''}
  ${person.custom.map((c) => html`<dt>${c.label}</dt><dd>${c.value}</dd>`)}
  <dt>Added</dt><dd>${when(person.created_at)}</dd>
</dl>
<section class="card" id="recording">
<h2>Recording</h2>
${
  recording
    ? html`<p id="recording-status">${statusBadge(person.recording_status, collection.review_required)}</p>
${person.recording_status === 'needs_rerecord' && person.review_note ? html`<p id="review-note">Asked for a new recording: <q>${person.review_note}</q> <span class="muted">(shown on their record page)</span></p>` : ''}
<audio id="audio" controls preload="metadata" src="${recording.audioUrl}"></audio>
<p class="muted">${recording.durationSeconds} s, recorded ${when(recording.recordedAt)}.</p>
${copyableLink('play-link', 'Play link', recording.playLink)}`
    : html`<p id="no-recording"><span class="badge wait">Not recorded</span> ${person.display_name} has not recorded their name yet.${admin ? ' Send them their record link.' : ''}</p>`
}
${
  admin
    ? copyableLink('record-link', 'Record link (anyone with it can record for this person)', person.record_url)
    : html`<p class="muted" id="record-link-hidden">The record link is shown to admins and owners: anyone with it can record for this person.</p>`
}
</section>
${guideSection({
  base,
  displayName: person.display_name,
  guide: person.guide,
  languages: person.languages,
  csrfToken: data.viewer.csrfToken,
  admin,
  state: data.guideState ?? null,
})}
${invitationSection(base, person, data.viewer.csrfToken, admin)}
${recording && admin ? reviewSection(base, person, data.viewer.csrfToken, data.reviewError ?? null, data.noteDraft ?? '') : ''}
<section class="card">
<h2>Their data</h2>
<p>Everything held about ${person.display_name}, for a subject-access request: <a class="button" href="${base}/export" download>Download (ZIP)</a></p>
</section>
${
  admin
    ? html`<section class="card">
<h2>Remove</h2>
<p class="row">
${recording ? html`<a class="button" href="${base}/delete-recording">Delete recording…</a>` : ''}
<a class="button danger-link" href="${base}/delete">Delete person…</a>
</p>
</section>`
    : ''
}`,
  });
}

/**
 * The latest e-mail to the person, and (for admins) a button that e-mails them now, named for
 * what they will get: someone invited before whose mail did not fail gets the reminder text.
 */
function invitationSection(base: string, person: PersonDetail, csrfToken: string, admin: boolean): SafeHtml {
  const { invitation } = person;
  const reminder = invitation.invited_at !== null && invitation.status !== 'failed';
  const button = reminder ? 'Send a reminder' : invitation.status === null ? 'Send invitation' : 'Send the invitation again';
  return html`<section class="card" id="invitation">
<h2>Invitation</h2>
<p id="invitation-status">${invitationBadge(invitation)}</p>
${
  invitation.unsubscribed_at
    ? html`<p>${person.display_name} unsubscribed from this collection’s e-mail ${when(invitation.unsubscribed_at)}.${admin ? ' Send them the record link another way.' : ''}</p>`
    : admin
      ? html`<form method="post" action="${base}/invite" class="inline">${csrfField(csrfToken)}<button type="submit">${button}</button></form>`
      : ''
}
</section>`;
}

/** Approve the recording, or ask for a new one with a note the person reads on their record page. */
function reviewSection(base: string, person: PersonDetail, csrfToken: string, error: FormError | null, draft: string): SafeHtml {
  const noteInvalid = error?.param === 'note' ? html` aria-invalid="true" aria-describedby="form-error"` : html``;
  return html`<section class="card" id="review">
<h2>Review</h2>
${formErrorBox(error)}
${
  person.recording_status === 'approved'
    ? html`<p>This recording is approved.</p>`
    : html`<form method="post" action="${base}/review" class="inline">${csrfField(csrfToken)}<input type="hidden" name="decision" value="approve"><button type="submit" class="primary">Approve recording</button></form>`
}
<form method="post" action="${base}/review" class="stack" id="rerecord-form">
${csrfField(csrfToken)}
<input type="hidden" name="decision" value="request_rerecord">
<label for="review-note-input">Ask for a new recording: what should change? <span class="muted">(up to ${MAX_REVIEW_NOTE} characters; ${person.display_name} sees it on their record page)</span></label>
<textarea id="review-note-input" name="note" rows="3" maxlength="${MAX_REVIEW_NOTE}" required${noteInvalid}>${draft}</textarea>
<div class="row"><button type="submit">Ask for a new recording</button></div>
</form>
</section>`;
}

export function deleteRecordingPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: CollectionItem;
  person: PersonDetail;
}): SafeHtml {
  const { collection, person } = data;
  const base = `/dashboard/collections/${collection.id}/people/${person.id}`;
  return confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    title: 'Delete recording',
    heading: html`Delete the recording of ${person.display_name}?`,
    details: html`<p class="warning">The audio is deleted and the play link stops playing until ${person.display_name} records again with their record link (the play link itself stays the same). This cannot be undone.</p>`,
    action: `${base}/delete-recording`,
    actionLabel: 'Delete recording',
    tone: 'danger',
    cancelHref: base,
  });
}

export function deletePersonPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: CollectionItem;
  person: PersonDetail;
}): SafeHtml {
  const { collection, person } = data;
  const base = `/dashboard/collections/${collection.id}/people/${person.id}`;
  return confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    title: 'Delete person',
    heading: html`Delete ${person.display_name}?`,
    details: html`<p>${person.email}, in ${collection.name}.</p>
<p class="warning">The person, their recording, play link and record link are deleted. This cannot be undone.</p>`,
    action: `${base}/delete`,
    actionLabel: 'Delete person',
    tone: 'danger',
    cancelHref: base,
  });
}
