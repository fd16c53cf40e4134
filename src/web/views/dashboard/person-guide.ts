/**
 * A person's pronunciation guide on their dashboard page: what it says (respelling, IPA, "not
 * like"), who wrote it and whether they approved it, how it sounds (their approved computer
 * voice, or the computer's unchecked guess), and for admins the forms that set the name's
 * languages and suggest another guide. Only the person approves a guide: no button here does.
 */
import { html, type SafeHtml } from '../../html.js';
import { type FormError, formErrorBox } from './collections.js';
import { coverageBadge, type GuideView, SOURCE_LABELS } from './coverage.js';
import { csrfField, when } from './layout.js';

export interface PersonGuide extends GuideView {
  language: string | null;
  source: 'generated' | 'organiser' | 'person' | null;
  /** The approved computer voice, same-origin path; null unless approved. */
  audioPath: string | null;
}

export interface NameLanguages {
  name_language: string | null;
  given_name_language: string | null;
  family_name_language: string | null;
}

/** What an admin typed into one of the forms, shown again with the refusal. */
export interface GuideFormState {
  form: 'languages' | 'guide';
  error: FormError;
  values: Record<string, string>;
}

const SOURCE_WORDS: Record<NonNullable<PersonGuide['source']>, string> = {
  generated: 'Made by the computer from the name',
  organiser: 'Suggested by your organisation',
  person: 'Written by them',
};

const invalid = (state: GuideFormState | null, form: GuideFormState['form'], param: string): SafeHtml =>
  state?.form === form && state.error.param === param ? html` aria-invalid="true" aria-describedby="form-error"` : html``;

/** A guide the person wrote or approved: an organiser replaces it only when they say so. */
export const ownedByThem = (guide: PersonGuide) => guide.source === 'person' || guide.approved_at !== null;

function hearIt(base: string, guide: PersonGuide): SafeHtml {
  if (guide.audioPath) {
    return html`<p class="guide-audio"><span id="guide-audio-label">Plays: <strong>${SOURCE_LABELS.approved_voice}</strong></span><br>
<audio id="guide-audio" controls preload="none" src="${guide.audioPath}" aria-labelledby="guide-audio-label"></audio></p>`;
  }
  if (!guide.ipa) return html``;
  return html`<p class="guide-audio"><span id="guide-audio-label">Plays: <strong>${SOURCE_LABELS.unchecked_guess}</strong></span><br>
<audio id="guide-audio" controls preload="none" src="${base}/guide.mp3" aria-labelledby="guide-audio-label"></audio></p>`;
}

export function guideSection(data: {
  base: string;
  displayName: string;
  guide: PersonGuide;
  languages: NameLanguages;
  csrfToken: string;
  admin: boolean;
  state: GuideFormState | null;
}): SafeHtml {
  const { base, guide } = data;
  const written = guide.respelling !== null || guide.ipa !== null;
  return html`<section class="card" id="pronunciation">
<h2>Pronunciation guide</h2>
<p id="coverage">Name said by: ${coverageBadge(guide.coverage)}</p>
${
  written
    ? html`<dl class="facts" id="guide">
  <dt>Say it</dt><dd id="guide-respelling">${guide.respelling ?? html`<span class="muted">None</span>`}</dd>
  <dt>IPA</dt><dd id="guide-ipa"><span lang="und-fonipa">${guide.ipa ?? ''}</span></dd>
  <dt>Not like</dt><dd id="guide-not-like">${guide.not_like ?? html`<span class="muted">Not given</span>`}</dd>
  <dt>Language</dt><dd>${guide.language ?? html`<span class="muted">Unknown</span>`}</dd>
  <dt>Written by</dt><dd id="guide-source">${guide.source ? SOURCE_WORDS[guide.source] : ''}</dd>
  <dt>Approved</dt><dd id="guide-approval">${
    guide.approved_at
      ? html`<span class="badge ok">Approved by them</span> ${when(guide.approved_at)}`
      : html`<span class="badge wait">Not approved by them</span>`
  }</dd>
</dl>
${hearIt(base, guide)}`
    : html`<p id="no-guide" class="muted">No guide yet: one is made from the name in the background.</p>`
}
<p class="muted">Only ${data.displayName} can approve a guide, on their record page.</p>
${data.admin ? suggestForm(data) : ''}
${data.admin ? languagesForm(data) : languagesList(data.languages)}
</section>`;
}

function suggestForm(data: Parameters<typeof guideSection>[0]): SafeHtml {
  const { base, guide, state } = data;
  const mine = state?.form === 'guide' ? state : null;
  const respelling = mine ? (mine.values.respelling ?? '') : (guide.respelling ?? '');
  const notLike = mine ? (mine.values.not_like ?? '') : (guide.not_like ?? '');
  const owned = ownedByThem(guide);
  return html`<form method="post" action="${base}/pronunciation" class="stack" id="guide-form">
<h3>Suggest a guide</h3>
${mine ? formErrorBox(mine.error) : ''}
${csrfField(data.csrfToken)}
<label for="guide-respelling-input">Say it as <span class="muted">(respelling, stressed syllable in capitals, e.g. shiv-AWN)</span></label>
<input id="guide-respelling-input" name="respelling" value="${respelling}" maxlength="120" autocomplete="off" required${invalid(state, 'guide', 'respelling')}>
<label for="guide-not-like-input">Not like <span class="muted">(optional: a common wrong way to say it)</span></label>
<input id="guide-not-like-input" name="not_like" value="${notLike}" maxlength="120" autocomplete="off"${invalid(state, 'guide', 'not_like')}>
${
  owned
    ? html`<label class="check" for="guide-overwrite"><input type="checkbox" id="guide-overwrite" name="overwrite_person_edits" value="true"${
        mine?.values.overwrite_person_edits === 'true' ? html` checked` : ''
      }> Replace their guide <span class="muted">(${data.displayName} wrote or approved it; their approval is withdrawn)</span></label>`
    : ''
}
<div class="row"><button type="submit">Suggest this guide</button></div>
</form>`;
}

const LANGUAGE_FIELDS = [
  ['name_language', 'name-language', 'Language of the name'],
  ['given_name_language', 'given-name-language', 'Language of the first name'],
  ['family_name_language', 'family-name-language', 'Language of the last name'],
] as const;

function languagesForm(data: Parameters<typeof guideSection>[0]): SafeHtml {
  const { base, languages, state } = data;
  const mine = state?.form === 'languages' ? state : null;
  return html`<form method="post" action="${base}/name-languages" class="stack" id="languages-form">
<h3>Languages of the name</h3>
<p class="muted">A language code such as es, ga or zh-Hant; leave empty when not known. A changed language makes the guide again (unless someone wrote it).</p>
${mine ? formErrorBox(mine.error) : ''}
${csrfField(data.csrfToken)}
${LANGUAGE_FIELDS.map(
  ([field, id, label]) => html`<label for="${id}">${label}</label>
<input id="${id}" name="${field}" value="${mine ? (mine.values[field] ?? '') : (languages[field] ?? '')}" maxlength="35" autocomplete="off" spellcheck="false"${invalid(state, 'languages', field)}>`,
)}
<div class="row"><button type="submit">Save languages</button></div>
</form>`;
}

function languagesList(languages: NameLanguages): SafeHtml {
  return html`<dl class="facts" id="languages">${LANGUAGE_FIELDS.map(
    ([field, , label]) => html`<dt>${label}</dt><dd>${languages[field] ?? html`<span class="muted">Not set</span>`}</dd>`,
  )}</dl>`;
}
