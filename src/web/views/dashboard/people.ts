/**
 * One collection: its people table (search, filter, order, pages of 100) and the form that adds
 * one person.
 */
import { LOCALE_NAMES, LOCALES } from '../../../i18n/index.js';
import { html, type SafeHtml } from '../../html.js';
import { type CollectionItem, type FormError, formErrorBox, progressBar } from './collections.js';
import { canChange, csrfField, layout, type Viewer, when } from './layout.js';
import { COVERAGE_LABELS, coverageBadge, coverageCounts, type CoverageState } from './coverage.js';
import { type RecordingStatus, statusBadge } from './recording-status.js';
import { approvePlayedForm, reviewControls } from './review.js';

export interface PersonItem {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  display_name: string;
  preferred_name: string | null;
  pronouns: string | null;
  phonetic_spelling: string | null;
  recording_status: RecordingStatus;
  invitation: InvitationState;
  created_at: string;
  pronunciation: { coverage: CoverageState };
}

export interface InvitationState {
  status: 'queued' | 'sent' | 'failed' | null;
  error: string | null;
  /** When the last invitation (or a reminder sent with one) was queued. */
  invited_at: string | null;
  updated_at: string | null;
  unsubscribed_at: string | null;
}

/** The latest e-mail to a person as a badge; a failure carries its reason. */
export function invitationBadge(invitation: InvitationState): SafeHtml {
  if (invitation.unsubscribed_at) return html`<span class="badge off">Unsubscribed</span>`;
  switch (invitation.status) {
    case null:
      return html`<span class="muted">Not invited</span>`;
    case 'queued':
      return html`<span class="badge wait">Queued</span>`;
    case 'sent':
      return html`<span class="badge ok">Sent</span> <span class="muted">${invitation.updated_at ? when(invitation.updated_at) : ''}</span>`;
    case 'failed':
      return html`<span class="badge off">Failed</span> <span class="muted mail-error">${invitation.error ?? ''}</span>`;
  }
}

export interface PeopleFilters {
  search: string;
  /** '' (everyone) or one of the status filters (`STATUS_FILTER_LABELS`). */
  status: string;
  /** '' (any) or a coverage state: who or what will say the name. */
  coverage: string;
  order: string;
}

export const ORDER_LABELS: Record<string, string> = {
  newest: 'Newest first',
  oldest: 'Oldest first',
  name: 'Name (A–Z)',
};

/** The status filters the table offers; `awaiting_review` only where review is on. */
export function statusFilterLabels(reviewRequired: boolean): Record<string, string> {
  return {
    '': 'Everyone',
    recorded: reviewRequired ? 'Recorded (approved)' : 'Recorded',
    not_recorded: 'Not recorded yet',
    needs_rerecord: 'Needs re-record',
    ...(reviewRequired ? { awaiting_review: 'Awaiting review' } : {}),
  };
}

/** "goes by Sam · they/them" under a name, when either is set. */
export function preferredLine(person: { preferred_name: string | null; pronouns: string | null }): SafeHtml {
  const parts = [person.preferred_name ? `goes by ${person.preferred_name}` : null, person.pronouns].filter(
    (part): part is string => part !== null && part !== '',
  );
  return parts.length === 0 ? html`` : html`<br><span class="muted preferred">${parts.join(' · ')}</span>`;
}

/** Query string of the people page for these filters (and a cursor and page number). */
export function peopleQuery(filters: PeopleFilters, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (filters.search !== '') params.set('search', filters.search);
  if (filters.status !== '') params.set('status', filters.status);
  if (filters.coverage !== '') params.set('coverage', filters.coverage);
  if (filters.order !== 'newest') params.set('order', filters.order);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function filterForm(collectionId: string, filters: PeopleFilters, reviewRequired: boolean): SafeHtml {
  return html`<form method="get" action="/dashboard/collections/${collectionId}" class="filters" role="search" aria-label="People">
<div class="stack"><label for="search">Search name or e-mail</label>
<input id="search" name="search" type="search" value="${filters.search}" maxlength="100" autocomplete="off"></div>
<div class="stack"><label for="status">Show</label>
<select id="status" name="status">${Object.entries(statusFilterLabels(reviewRequired)).map(
    ([value, label]) => html`<option value="${value}"${filters.status === value ? html` selected` : ''}>${label}</option>`,
  )}</select></div>
<div class="stack"><label for="coverage">Name said by</label>
<select id="coverage" name="coverage"><option value="">Anyone or anything</option>${Object.entries(COVERAGE_LABELS).map(
    ([value, label]) => html`<option value="${value}"${filters.coverage === value ? html` selected` : ''}>${label}</option>`,
  )}</select></div>
<div class="stack"><label for="order">Order</label>
<select id="order" name="order">${Object.entries(ORDER_LABELS).map(
    ([value, label]) => html`<option value="${value}"${filters.order === value ? html` selected` : ''}>${label}</option>`,
  )}</select></div>
<button type="submit">Show</button>
</form>`;
}

/**
 * A search of one or two characters (the index holds trigrams), or one that matches very many
 * people, is read in order, a window of people per page: this page stopped at the window's end.
 */
const searchNote = (window: number) =>
  html`<p class="muted" id="search-partial">Short or very common searches look through ${window.toLocaleString('en')} people at a time. Those shown are the matches so far; keep searching for more.</p>`;

/** Who the invite form can e-mail: everyone still to record, or those without a recording by how their name will be said. */
export const INVITE_CHOICES: Record<string, string> = {
  not_recorded: 'E-mail everyone who has not recorded',
  no_voice: 'E-mail everyone with neither their voice nor an approved computer voice',
  guide: 'E-mail people with only a guide (not approved)',
  none: 'E-mail people with nothing yet',
};

/**
 * Chooses who to e-mail; the next page names how many get the invitation or the reminder, in
 * which languages, and sends on confirmation (people e-mailed in the last 24 hours only when ticked).
 */
function inviteForm(base: string): SafeHtml {
  return html`<form method="get" action="${base}/invitations/confirm" class="row" id="invite-form">
<label for="invite-who" class="visually-hidden">Who to e-mail</label>
<select id="invite-who" name="who">${Object.entries(INVITE_CHOICES).map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select>
<button type="submit" class="primary">Review and send…</button>
<label class="check" for="invite-resend"><input type="checkbox" id="invite-resend" name="resend" value="true"> Also people e-mailed in the last 24 hours</label>
<a href="${base}/invitations/preview">Preview the mail</a>
<a href="${base}/settings">Mail text and reminders</a>
</form>`;
}

/**
 * The CSV and ZIP downloads with the CSV's options: a semicolon for Excel where the decimal mark
 * is a comma, and the byte-order mark Excel needs for accents (unticked sends only the hidden
 * `bom=false`; ticked sends `true` first, which wins).
 */
const downloadForm = (base: string): SafeHtml =>
  html`<form method="get" action="${base}/export" class="row" id="downloads">
<label for="export-separator">Separator</label>
<select id="export-separator" name="separator"><option value="comma">Comma</option><option value="semicolon">Semicolon (Excel in much of Europe)</option></select>
<label class="check" for="export-bom"><input type="checkbox" id="export-bom" name="bom" value="true" checked> Byte-order mark (Excel shows accents right)</label><input type="hidden" name="bom" value="false">
<button type="submit" name="format" value="csv">Download CSV</button>
<button type="submit" name="format" value="zip">Download ZIP (recordings and CSV)</button>
</form>`;

export function collectionPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: CollectionItem & { review_required: boolean };
  people: PersonItem[];
  filters: PeopleFilters;
  page: number;
  pageSize: number;
  nextCursor: string | null;
  /** How many people have each coverage state (the progress under the bar). */
  coverage: Record<CoverageState, number>;
  /** People looked at by a search read in order that stopped before filling the page (see `searchNote`); 0 otherwise. */
  searchedWindow: number;
  notice?: string | null;
  /** The review script (in-place decisions, the listened marker). */
  scriptUrl: string;
  /** This page's query string (filters, cursor): where a review form returns to without script. */
  query: string;
  /** Recordings awaiting a decision that were played in the dashboard ("approve the played"). */
  playedCount: number;
}): SafeHtml {
  const { collection, filters } = data;
  const base = `/dashboard/collections/${collection.id}`;
  const first = (data.page - 1) * data.pageSize + 1;
  const filtered = filters.search !== '' || filters.status !== '' || filters.coverage !== '';
  const review = collection.review_required;
  const admin = canChange(data.viewer);
  const rows = data.people.map(
    (p) => html`<tr data-person-id="${p.id}">
  <td data-label="Name" id="row-${p.id}"><a href="${base}/people/${p.id}">${p.display_name}</a>${preferredLine(p)}${p.phonetic_spelling ? html`<br><span class="muted phonetic">${p.phonetic_spelling}</span>` : ''}</td>
  <td data-label="E-mail" class="email">${p.email}</td>
  <td data-label="Status" class="review-status">${statusBadge(p.recording_status, review)}</td>
  ${
    admin
      ? html`<td data-label="Review" class="review">${
          p.recording_status === 'none'
            ? html`<span class="muted">Nothing to review</span>`
            : reviewControls({
                base,
                person: p,
                csrfToken: data.viewer.csrfToken,
                back: { to: 'table', query: data.query },
                idPrefix: 'table',
              })
        }</td>`
      : ''
  }
  <td data-label="Name said by" class="coverage">${coverageBadge(p.pronunciation.coverage)}</td>
  <td data-label="E-mail sent" class="invitation">${invitationBadge(p.invitation)}</td>
  <td data-label="Added">${when(p.created_at)}</td>
</tr>`,
  );
  return layout({
    title: collection.name,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    notice: data.notice ?? null,
    scripts: [data.scriptUrl],
    body: html`<p><a href="/dashboard/collections">← Collections</a></p>
<div class="heading-row"><h1 id="collection-name">${collection.name}</h1>
<div class="row">${admin ? html`<a class="button primary" href="${base}/people/new">Add a person</a><a class="button" href="${base}/import">Import a CSV file</a>` : ''}<a class="button" href="${base}/review" id="review-mode-link">Review mode</a><a class="button" href="${base}/reader">Reader view</a></div></div>
${collection.description ? html`<p class="description">${collection.description}</p>` : ''}
${progressBar(collection)}
${coverageCounts(data.coverage)}
${review ? html`<p class="muted" id="review-on">Review is on: a recording counts as recorded once it is approved.</p>` : ''}
${downloadForm(base)}
${admin ? html`<p class="row"><a href="${base}/edit">Edit collection and fields</a><a href="${base}/settings">Invitations and branding</a><a class="danger-link" href="${base}/archive">Archive…</a></p>` : ''}
<h2>People</h2>
${admin && collection.member_count > 0 ? inviteForm(base) : ''}
${admin ? approvePlayedForm(base, data.viewer.csrfToken, data.playedCount, data.query) : ''}
${filterForm(collection.id, filters, review)}
${data.searchedWindow > 0 ? searchNote(data.searchedWindow) : ''}
${
  data.people.length === 0 && data.searchedWindow === 0
    ? html`<p class="empty" id="no-people">${
        filtered || data.page > 1
          ? 'Nobody here matches.'
          : admin
            ? html`Nobody in this collection yet. <a href="${base}/people/new">Add a person</a> or <a href="${base}/import">import a CSV file</a>.`
            : 'Nobody in this collection yet.'
      }</p>`
    : data.people.length === 0
      ? ''
      : html`<p class="muted" id="people-range">${filtered ? 'Matches' : 'People'} ${first}–${first + data.people.length - 1}${
          filtered ? '' : html` of ${collection.member_count}`
        }</p>
<table class="list people" id="people">
<thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Status</th>${admin ? html`<th scope="col">Review</th>` : ''}<th scope="col">Name said by</th><th scope="col">Invitation</th><th scope="col">Added</th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
<nav class="pager row" aria-label="Pages">
${data.page > 1 ? html`<a class="button" href="${base}${peopleQuery(filters)}">← First page</a>` : ''}
${
  data.nextCursor
    ? html`<a class="button" rel="next" href="${base}${peopleQuery(filters, { cursor: data.nextCursor, page: String(data.page + 1) })}">${
        data.searchedWindow > 0 ? 'Keep searching →' : `Next ${data.pageSize} →`
      }</a>`
    : ''
}
</nav>`,
  });
}

export interface CustomFieldInput {
  key: string;
  label: string;
  type: string;
  required: boolean;
  options?: string[];
}

export interface NewPersonForm {
  first_name: string;
  last_name: string;
  email: string;
  display_name: string;
  preferred_name: string;
  pronouns: string;
  phonetic_spelling: string;
  external_id: string;
  /** The person's own language of mail and record page; '' for the collection's. */
  language: string;
  custom: Record<string, string>;
}

export const emptyPersonForm = (): NewPersonForm => ({
  first_name: '',
  last_name: '',
  email: '',
  display_name: '',
  preferred_name: '',
  pronouns: '',
  phonetic_spelling: '',
  external_id: '',
  language: '',
  custom: {},
});

const invalid = (error: FormError | null | undefined, param: string): SafeHtml =>
  error?.param === param ? html` aria-invalid="true" aria-describedby="form-error"` : html``;

function customInput(field: CustomFieldInput, value: string, error: FormError | null | undefined): SafeHtml {
  const id = `custom-${field.key}`;
  const name = `custom_${field.key}`;
  const label = html`<label for="${id}">${field.label}${field.required ? '' : html` <span class="muted">(optional)</span>`}</label>`;
  const mark = invalid(error, `custom_fields.${field.key}`);
  if (field.type === 'boolean' || field.type === 'select') {
    const choices: [string, string][] =
      field.type === 'boolean'
        ? [
            ['true', 'Yes'],
            ['false', 'No'],
          ]
        : (field.options ?? []).map((o) => [o, o]);
    return html`${label}<select id="${id}" name="${name}"${mark}><option value="">—</option>${choices.map(
      ([v, text]) => html`<option value="${v}"${value === v ? html` selected` : ''}>${text}</option>`,
    )}</select>`;
  }
  const type = field.type === 'email' ? 'email' : field.type === 'url' ? 'url' : 'text';
  const inputmode = field.type === 'number' ? html` inputmode="decimal"` : '';
  return html`${label}<input id="${id}" name="${name}" type="${type}"${inputmode} value="${value}" maxlength="1000" autocomplete="off"${mark}>`;
}

export function newPersonPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: CollectionItem;
  fields: CustomFieldInput[];
  form: NewPersonForm;
  error?: FormError | null;
}): SafeHtml {
  const { collection, form, error } = data;
  return layout({
    title: 'Add a person',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="/dashboard/collections/${collection.id}">← ${collection.name}</a></p>
<h1>Add a person</h1>
${formErrorBox(error)}
<form method="post" action="/dashboard/collections/${collection.id}/people" class="card stack" id="new-person">
${csrfField(data.viewer.csrfToken)}
<label for="first-name">First name</label>
<input id="first-name" name="first_name" value="${form.first_name}" maxlength="100" required autocomplete="off"${invalid(error, 'first_name')}>
<label for="last-name">Last name <span class="muted">(optional: some people have one name)</span></label>
<input id="last-name" name="last_name" value="${form.last_name}" maxlength="100" autocomplete="off"${invalid(error, 'last_name')}>
<label for="email">E-mail</label>
<input id="email" name="email" type="email" value="${form.email}" maxlength="254" required autocomplete="off"${invalid(error, 'email')}>
<label for="display-name">Display name <span class="muted">(optional; defaults to first and last name; write it family name first if that is how it is said)</span></label>
<input id="display-name" name="display_name" value="${form.display_name}" maxlength="200" autocomplete="off"${invalid(error, 'display_name')}>
<label for="preferred-name">Preferred name <span class="muted">(optional: the name they go by)</span></label>
<input id="preferred-name" name="preferred_name" value="${form.preferred_name}" maxlength="100" autocomplete="off"${invalid(error, 'preferred_name')}>
<label for="pronouns">Pronouns <span class="muted">(optional, e.g. she/her)</span></label>
<input id="pronouns" name="pronouns" value="${form.pronouns}" maxlength="40" autocomplete="off"${invalid(error, 'pronouns')}>
<label for="phonetic">Phonetic spelling <span class="muted">(optional, e.g. shi-VAWN)</span></label>
<input id="phonetic" name="phonetic_spelling" value="${form.phonetic_spelling}" maxlength="100" autocomplete="off"${invalid(error, 'phonetic_spelling')}>
<label for="person-language">Language of their mail and record page</label>
<select id="person-language" name="language"${invalid(error, 'language')}><option value="">The collection’s language</option>${LOCALES.map(
      (locale) =>
        html`<option value="${locale}"${form.language === locale ? html` selected` : ''}>${LOCALE_NAMES[locale]}</option>`,
    )}</select>
<label for="external-id">Your id for this person <span class="muted">(optional)</span></label>
<input id="external-id" name="external_id" value="${form.external_id}" maxlength="255" autocomplete="off"${invalid(error, 'external_id')}>
${data.fields.map((field) => customInput(field, form.custom[field.key] ?? '', error))}
<div class="row"><button type="submit" class="primary">Add person</button><a class="button" href="/dashboard/collections/${collection.id}">Cancel</a></div>
</form>`,
  });
}
