/**
 * The record page's "How to say my name": the person's pronunciation guide (respelling large,
 * IPA small, its language), the computer voice saying what is in the field, alone or in a
 * sentence, the respelling key, and the choice to approve that voice (and to withdraw it). One
 * plain form: Save and Approve are its two submit buttons, so it works without the script; the
 * script only adds "Hear it".
 */
import type { RespellingKeyRow } from '../../pronunciation/respelling-table.js';
import { formatDay, type Locale, type Translate } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';

export interface RecorderGuideData {
  /** The saved guide; null until one is made (the person may write the first). */
  guide: {
    respelling: string;
    ipa: string;
    language: string;
    languageSuggested: boolean;
    notLike: string | null;
    /** ISO time of the person's approval; null: not approved. */
    approvedAt: string | null;
    audioUrl: string | null;
  } | null;
  /** What the person sent when it could not be saved, to show again with the error. */
  draft: { respelling: string; notLike: string } | null;
  /** The language the person (or organiser) gave for the name; null: none given. */
  nameLanguage: string | null;
  /** BCP 47 tags the person may choose from. */
  languageOptions: readonly string[];
  languageUrl: string;
  error: 'respelling_invalid' | null;
  saveUrl: string;
  approveUrl: string;
  withdrawUrl: string;
  hearUrl: string;
  maxRespelling: number;
  maxNotLike: number;
  key: readonly RespellingKeyRow[];
}

/** Messages the guide's part of the script shows (keys `js_guide_*` of `recorder`). */
export const GUIDE_SCRIPT_MESSAGES = ['guide_loading', 'guide_invalid', 'guide_failed', 'guide_busy'] as const;

/** "Korean" in the page's language; the tag itself where the runtime has no name for it. */
function languageName(locale: Locale, tag: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

export function guideSection(t: Translate, locale: Locale, data: RecorderGuideData): SafeHtml {
  const { guide } = data;
  const respelling = data.draft?.respelling ?? guide?.respelling ?? '';
  const notLike = data.draft?.notLike ?? guide?.notLike ?? '';
  const invalid = data.error ? html` aria-invalid="true"` : html``;
  return html`<section class="guide" id="guide" aria-labelledby="guide-title" data-hear-url="${data.hearUrl}">
    <h2 id="guide-title">${t('guide_title')}</h2>
    ${
      guide
        ? html`<p class="guide-respelling" id="guide-respelling" lang="en">${guide.respelling}</p>
    <p class="guide-ipa"><span class="visually-hidden">${t('guide_ipa')} </span><span dir="ltr">/${guide.ipa}/</span></p>
    <p class="guide-language" id="guide-language">${t('guide_language', { language: languageName(locale, guide.language) })}${
      guide.languageSuggested ? html` <span class="hint">${t('guide_language_suggested')}</span>` : ''
    }</p>
    ${guide.approvedAt ? '' : languageForm(t, locale, data)}
    ${guide.notLike ? html`<p class="guide-not-like">${t('guide_not_like_shown', { wrong: guide.notLike })}</p>` : ''}`
        : html`<p class="note" id="guide-none">${t('guide_none')}</p>`
    }
    ${guide?.approvedAt ? approvedState(t, locale, data) : ''}
    <form method="post" action="${data.saveUrl}" id="guide-form">
      ${data.error ? html`<p class="error" id="guide-error" role="alert">${t('guide_invalid')}</p>` : ''}
      <label class="field" for="guide-input">${t('guide_edit_label')}
        <input id="guide-input" name="respelling" required maxlength="${data.maxRespelling}" autocomplete="off"
          autocapitalize="off" spellcheck="false" dir="ltr" value="${respelling}"
          aria-describedby="guide-hint${data.error ? ' guide-error' : ''}"${invalid}>
        <span class="hint" id="guide-hint">${t('guide_edit_hint')}</span>
      </label>
      <p class="guide-status" id="guide-status" role="status" aria-live="polite"></p>
      <div class="controls">
        <button type="button" id="guide-hear" class="primary" hidden>${t('guide_hear')}</button>
        <button type="button" id="guide-hear-sentence" hidden>${t('guide_hear_sentence')}</button>
      </div>
      <audio id="guide-audio" preload="none" hidden></audio>
      <label class="field" for="guide-not-like">${t('guide_not_like')} <span class="optional">${t('optional')}</span>
        <input id="guide-not-like" name="not_like" maxlength="${data.maxNotLike}" autocomplete="off" dir="auto"
          value="${notLike}" aria-describedby="guide-not-like-hint">
        <span class="hint" id="guide-not-like-hint">${t('guide_not_like_hint')}</span>
      </label>
      ${guide?.approvedAt ? html`<p class="hint">${t('guide_change_withdraws')}</p>` : ''}
      <div class="controls">
        <button type="submit" id="guide-save">${t('guide_save')}</button>
        ${
          guide?.approvedAt
            ? ''
            : html`<button type="submit" id="guide-approve" class="primary" formaction="${data.approveUrl}">${t('guide_approve')}</button>`
        }
      </div>
    </form>
    ${respellingKey(t, data.key)}
  </section>`;
}

/** "Language of my name": the guide is made (or spoken) with that language's rules. */
function languageForm(t: Translate, locale: Locale, data: RecorderGuideData): SafeHtml {
  const current = data.nameLanguage ?? data.guide?.language ?? null;
  const options = current && !data.languageOptions.includes(current) ? [current, ...data.languageOptions] : data.languageOptions;
  const named = options
    .map((tag) => ({ tag, name: languageName(locale, tag) }))
    .sort((a, b) => a.name.localeCompare(b.name, locale));
  return html`<form method="post" action="${data.languageUrl}" class="guide-language-form" id="guide-language-form">
    <label class="field" for="guide-name-language">${t('guide_name_language')}
      <select id="guide-name-language" name="name_language" aria-describedby="guide-name-language-hint">
        ${named.map(({ tag, name }) => html`<option value="${tag}"${tag === current ? html` selected` : ''}>${name}</option>`)}
      </select>
      <span class="hint" id="guide-name-language-hint">${t('guide_name_language_hint')}</span>
    </label>
    <button type="submit" id="guide-name-language-save">${t('guide_name_language_save')}</button>
  </form>`;
}

/** The person approved the computer voice: they hear what others will, and may take it back. */
function approvedState(t: Translate, locale: Locale, data: RecorderGuideData): SafeHtml {
  const guide = data.guide!;
  return html`<div class="guide-approved" id="guide-approved">
    <p><strong>${t('guide_approved', { date: formatDay(locale, guide.approvedAt!.slice(0, 10)) })}</strong></p>
    ${guide.audioUrl ? html`<audio controls preload="none" src="${guide.audioUrl}" aria-label="${t('guide_approved_audio')}"></audio>` : ''}
    <form method="post" action="${data.withdrawUrl}">
      <button type="submit" id="guide-withdraw">${t('guide_withdraw')}</button>
    </form>
  </div>`;
}

/** The key's rows as a table: the letters to type, a word with the sound, and the IPA. */
function respellingKey(t: Translate, rows: readonly RespellingKeyRow[]): SafeHtml {
  return html`<details class="guide-key" id="guide-key">
    <summary>${t('guide_key_summary')}</summary>
    <p>${t('guide_key_help')}</p>
    <div class="table-scroll" tabindex="0" role="region" aria-label="${t('guide_key_summary')}">
      <table dir="ltr">
        <thead><tr><th scope="col">${t('guide_key_letters')}</th><th scope="col">${t('guide_key_example')}</th><th scope="col">IPA</th></tr></thead>
        <tbody>
          ${rows.map(
            (row) =>
              html`<tr><td><strong>${row.respelling}</strong></td><td lang="en">${row.example}${
                row.nonEnglish ? html` <span class="hint">(${t('guide_key_not_english')})</span>` : ''
              }</td><td>${row.ipa}</td></tr>`,
          )}
        </tbody>
      </table>
    </div>
  </details>`;
}
