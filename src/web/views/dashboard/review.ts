/**
 * Review at speed: the people table's inline review controls (play, approve, ask again with a
 * note), "approve what you played", and review mode, one recording after another from the
 * keyboard. Every control is a plain form that works without script; `review.ts` (client) sends
 * them in place, marks a recording as listened when it plays, and adds the keys.
 */
import { html, type SafeHtml } from '../../html.js';
import type { CollectionItem } from './collections.js';
import { canChange, csrfField, layout, type Viewer } from './layout.js';
import { MAX_REVIEW_NOTE, type RecordingStatus, statusBadge } from './recording-status.js';

/** Where a review form sends the organiser back to without script: the table (with its filters) or review mode. */
export type ReviewReturn = { to: 'table'; query: string } | { to: 'review' };

export interface ReviewPerson {
  id: string;
  display_name: string;
  phonetic_spelling: string | null;
  recording_status: RecordingStatus;
  review_note: string | null;
  pronunciation: { respelling: string | null; not_like: string | null };
}

const returnFields = (back: ReviewReturn): SafeHtml =>
  back.to === 'table'
    ? html`<input type="hidden" name="return_to" value="table"><input type="hidden" name="query" value="${back.query}">`
    : html`<input type="hidden" name="return_to" value="review">`;

/**
 * Play, approve and ask again for one person with a recording. `idPrefix` keeps the ids of the
 * note fields unique on a page of many people.
 */
export function reviewControls(data: {
  base: string;
  person: Pick<ReviewPerson, 'id' | 'display_name' | 'recording_status'>;
  csrfToken: string;
  back: ReviewReturn;
  idPrefix: string;
}): SafeHtml {
  const { person, base } = data;
  const personBase = `${base}/people/${person.id}`;
  const noteId = `${data.idPrefix}-note-${person.id}`;
  const name = person.display_name;
  return html`<div class="review-controls">
<audio controls preload="none" src="${personBase}/audio" data-listened="${personBase}/listened" aria-label="Recording of ${name}"></audio>
<form method="post" action="${personBase}/review" class="inline review-approve" data-review-form${person.recording_status === 'approved' ? html` hidden` : ''}>
${csrfField(data.csrfToken)}<input type="hidden" name="decision" value="approve">${returnFields(data.back)}
<button type="submit" class="primary" aria-label="Approve the recording of ${name}">Approve</button>
</form>
<details class="ask-again"><summary>Ask again<span class="visually-hidden"> for a new recording of ${name}</span></summary>
<form method="post" action="${personBase}/review" class="stack review-rerecord" data-review-form>
${csrfField(data.csrfToken)}<input type="hidden" name="decision" value="request_rerecord">${returnFields(data.back)}
<label for="${noteId}">What should change? <span class="muted">(${name} reads it)</span></label>
<textarea id="${noteId}" name="note" rows="2" maxlength="${MAX_REVIEW_NOTE}" required></textarea>
<div class="row"><button type="submit">Ask for a new recording</button></div>
</form>
</details>
<p class="review-message" role="status"></p>
</div>`;
}

/** "Approve the 12 recordings you played": recordings awaiting a decision that were played in the dashboard. */
export function approvePlayedForm(base: string, csrfToken: string, count: number, query: string): SafeHtml {
  if (count === 0) return html``;
  return html`<form method="post" action="${base}/review/approve-played" class="row" id="approve-played">
${csrfField(csrfToken)}<input type="hidden" name="query" value="${query}">
<button type="submit">Approve the ${count} played recording${count === 1 ? '' : 's'}</button>
<span class="muted">Recordings awaiting a decision that someone played here; a newer take is left for review.</span>
</form>`;
}

/** The keys of review mode, shown on the page. */
const KEYS: [string[], string][] = [
  [['Space'], 'play or pause the recording'],
  [['A'], 'approve it and go to the next unreviewed'],
  [['R'], 'ask again: type the note, Enter sends it (Shift+Enter for a new line, Esc goes back)'],
  [['J', '↓'], 'next person'],
  [['K', '↑'], 'previous person'],
  [['N'], 'next unreviewed'],
];

function keyHelp(): SafeHtml {
  return html`<section class="card" id="review-keys" aria-labelledby="review-keys-heading">
<h2 id="review-keys-heading">Keys</h2>
<dl class="keys">${KEYS.map(
    ([keys, what]) => html`<dt>${keys.map((k, i) => html`${i > 0 ? ' or ' : ''}<kbd>${k}</kbd>`)}</dt><dd>${what}</dd>`,
  )}</dl>
<p class="muted">Without script, each person’s buttons work as forms, and the page shows the next people awaiting a decision.</p>
</section>`;
}

function queueItem(base: string, person: ReviewPerson, csrfToken: string, admin: boolean, reviewRequired: boolean): SafeHtml {
  const { pronunciation } = person;
  const spelling = person.phonetic_spelling ?? pronunciation.respelling;
  return html`<li class="review-item" id="review-${person.id}" data-person-id="${person.id}" data-status="${person.recording_status}" tabindex="-1" aria-labelledby="name-${person.id}">
<h2 class="review-name" id="name-${person.id}"><a href="${base}/people/${person.id}"><bdi>${person.display_name}</bdi></a></h2>
${spelling ? html`<p class="phonetic">Says: <bdi>${spelling}</bdi>${pronunciation.not_like ? html` <span class="muted">(not like <bdi>${pronunciation.not_like}</bdi>)</span>` : ''}</p>` : ''}
<p class="review-status">${statusBadge(person.recording_status, reviewRequired)}</p>
${
  admin
    ? reviewControls({ base, person, csrfToken, back: { to: 'review' }, idPrefix: 'queue' })
    : html`<audio controls preload="none" src="${base}/people/${person.id}/audio" aria-label="Recording of ${person.display_name}"></audio>`
}
</li>`;
}

export function reviewModePage(data: {
  styleUrl: string;
  scriptUrl: string;
  viewer: Viewer;
  collection: CollectionItem & { review_required: boolean };
  people: ReviewPerson[];
  /** More people await a decision after this page. */
  more: boolean;
  notice?: string | null;
}): SafeHtml {
  const { collection } = data;
  const base = `/dashboard/collections/${collection.id}`;
  const admin = canChange(data.viewer);
  return layout({
    title: `Review · ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    notice: data.notice ?? null,
    scripts: [data.scriptUrl],
    body: html`<p><a href="${base}">← ${collection.name}</a></p>
<h1>Review recordings</h1>
<p>Recordings awaiting a decision, oldest person first${data.more ? ', a hundred at a time' : ''}. ${
      admin ? 'Approve each one, or ask for a new recording with a note the person reads.' : 'Only admins and owners decide.'
    }</p>
${keyHelp()}
<p id="review-position" class="muted" aria-live="polite"></p>
${
  data.people.length === 0
    ? html`<p class="empty" id="review-done">No recording awaits a decision. <a href="${base}">Back to the people</a>.</p>`
    : html`<ol class="review-queue" id="review-queue">${data.people.map((p) =>
        queueItem(base, p, data.viewer.csrfToken, admin, collection.review_required),
      )}</ol>`
}
${data.more ? html`<p><a class="button" id="review-more" href="${base}/review">Show the next people awaiting a decision</a></p>` : ''}`,
  });
}
