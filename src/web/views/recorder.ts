/**
 * The recorder page at `{BASE_URL}/r/<token>`: one person records their name. It says who asks
 * (organisation, logo, intro), by when, and who will hear the recording; a returning person
 * hears their recording, copies their play link or signature badge, deletes it, and corrects
 * how their name is written (when the collection allows). In the collection's language unless
 * the browser asks for another; right-to-left in Arabic. Works on phone screens, every control
 * is a native button or input, the script is our own; without JavaScript it says so plainly.
 */
import { formatDay, type Locale, textDirection, translator } from '../../i18n/index.js';
import { html, isolate, jsonForScript, type SafeHtml, SLOT, withSlot } from '../html.js';
import { GUIDE_SCRIPT_MESSAGES, guideSection, type RecorderGuideData } from './recorder-guide.js';

/** Messages the page's script shows, sent with the page in its language (keys `js_*` of `recorder`). */
const SCRIPT_MESSAGES = [
  'try_again',
  'start',
  'no_device',
  'allow_mic',
  'no_mic',
  'blocked',
  'blocked_already',
  'get_ready',
  'heard_nothing',
  'take_too_short',
  'review',
  'recording',
  'audio_silent',
  'audio_too_short',
  'audio_too_long',
  'audio_clipped',
  'audio_too_large',
  'audio_unsupported_format',
  'audio_corrupt',
  'audio_empty',
  'uploading',
  'failed',
  'saved',
  'upload_failed',
  'choose_file',
  'copied',
] as const;

const NOTICES = {
  deleted: 'deleted',
  saved: 'details_saved',
  guide_saved: 'guide_saved',
  guide_approved: 'guide_approved_notice',
  guide_withdrawn: 'guide_withdrawn',
} as const;

export interface RecorderPageData {
  locale: Locale;
  person: { displayName: string; preferredName: string | null; pronouns: string | null; phoneticSpelling: string | null };
  collection: {
    name: string;
    organisation: string | null;
    intro: string | null;
    privacyNote: string | null;
    /** `YYYY-MM-DD` or null. */
    deadline: string | null;
    /** The deadline's day is over: the page says so instead of asking to record by it (recording stays open). */
    deadlinePassed: boolean;
    logoUrl: string | null;
    /** The brand colour's style sheet (loaded after the page's own, it sets `--accent`), or null. */
    brandStyleUrl: string | null;
    selfEdit: boolean;
  };
  hasRecording: boolean;
  /** "How to say my name": the person's pronunciation guide and its forms. */
  guide: RecorderGuideData;
  /** The organiser asked for a new recording with this note (null: no request). */
  reviewNote: string | null;
  /** The person's play link, and the HTML of their signature badge, once they have recorded. */
  playLink: string | null;
  signatureHtml: string | null;
  uploadUrl: string;
  /** The person's own recording as a download, and the forms that delete it and edit their name. */
  downloadUrl: string;
  deleteUrl: string;
  detailsUrl: string;
  notice: 'deleted' | 'saved' | 'guide_saved' | 'guide_approved' | 'guide_withdrawn' | null;
  /** The field of the details form that could not be saved. */
  detailsError: 'display_name' | 'preferred_name' | 'pronouns' | 'phonetic_spelling' | null;
  scriptUrl: string;
  /** The script of "How to say my name" (its "Hear it" buttons). */
  guideScriptUrl: string;
  styleUrl: string;
  maxSeconds: number;
  maxUploadBytes: number;
}

/** The frame of the pages people open from their mail (record page, unsubscribe): private, in their language. */
export function personPageLayout(
  locale: Locale,
  title: string,
  styleUrl: string,
  body: SafeHtml,
  scriptUrls: readonly string[] = [],
  extraStyleUrls: readonly string[] = [],
): SafeHtml {
  return html`<!doctype html>
<html lang="${locale}" dir="${textDirection(locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="${styleUrl}">
${extraStyleUrls.map((url) => html`<link rel="stylesheet" href="${url}">\n`)}<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
${body}
${scriptUrls.map((url) => html`<script src="${url}" defer></script>`)}
</body>
</html>`;
}

export function recorderPage(data: RecorderPageData): SafeHtml {
  const t = translator(data.locale, 'recorder');
  const { person, collection } = data;
  const messages = Object.fromEntries(
    [...SCRIPT_MESSAGES, ...GUIDE_SCRIPT_MESSAGES].map((key) => [key, key === 'start' ? t('start') : t(`js_${key}`)]),
  );
  const body = html`<main class="recorder" id="recorder" data-state="idle" data-upload-url="${data.uploadUrl}"
  data-max-seconds="${data.maxSeconds}" data-max-bytes="${data.maxUploadBytes}">
  <header class="brand">
    ${collection.logoUrl ? html`<img class="logo" src="${collection.logoUrl}" alt="${collection.organisation ?? ''}" height="48">` : ''}
    <p class="organisation">${collection.organisation ? html`<strong><bdi>${collection.organisation}</bdi></strong> · ` : ''}${withSlot(t('for_collection', { collection: SLOT }), html`<bdi>${collection.name}</bdi>`)}</p>
  </header>
  ${data.notice ? html`<p class="notice" role="status" id="notice">${t(NOTICES[data.notice])}</p>` : ''}
  <p class="eyebrow">${t('eyebrow')}</p>
  <h1 class="name" dir="auto">${person.displayName}</h1>
  ${collection.intro ? html`<p class="intro" dir="auto">${collection.intro}</p>` : ''}
  ${collection.deadline ? html`<p class="deadline" id="deadline">${t(collection.deadlinePassed ? 'deadline_passed' : 'deadline', { deadline: formatDay(data.locale, collection.deadline) })}</p>` : ''}
  ${guideSection(t, data.locale, data.guide)}

  <h2 id="record-title">${t('record_own_title')}</h2>
  ${
    data.reviewNote !== null
      ? html`<section class="review-request" aria-labelledby="review-request-title">
    <h2 id="review-request-title">${t('rerecord_title')}</h2>
    <p class="review-note">${data.reviewNote}</p>
  </section>`
      : data.hasRecording
        ? html`<p class="note">${t('has_recording')}</p>`
        : ''
  }
  ${data.hasRecording ? currentRecording(t, data) : ''}

  <label class="field" for="phonetic">${t('phonetic')} <span class="optional">${t('optional')}</span>
    <input id="phonetic" name="phonetic_spelling" maxlength="100" autocomplete="off"
      placeholder="${t('phonetic_placeholder')}" value="${person.phoneticSpelling ?? ''}" dir="auto"${
        // One phonetic field: it goes with the recording and, where people may edit their details, with that form too.
        collection.selfEdit ? html` form="details-form"` : ''
      }${
        data.detailsError === 'phonetic_spelling'
          ? html` aria-invalid="true" aria-describedby="phonetic-hint details-error"`
          : html` aria-describedby="phonetic-hint"`
      }>
    <span class="hint" id="phonetic-hint">${t('phonetic_hint')}</span>
  </label>

  <p id="status" class="status" role="status" aria-live="polite">${t('status_idle')}</p>
  <p id="countdown" class="countdown" aria-live="assertive" hidden></p>
  <div class="meter" id="meter" role="meter" aria-label="${t('meter_label')}" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0" hidden><div class="meter-fill" id="meter-fill"></div></div>
  <p id="timer" class="timer" hidden></p>

  <div class="controls">
    <button type="button" id="start" class="primary">${t('start')}</button>
    <button type="button" id="stop" class="primary" hidden>${t('stop')}</button>
    <button type="button" id="listen" hidden>${t('listen')}</button>
    <button type="button" id="rerecord" hidden>${t('record_again')}</button>
    <button type="button" id="submit" class="primary" hidden>${t('submit')}</button>
  </div>
  <audio id="preview" controls preload="auto" hidden></audio>

  <details class="upload" id="upload-box">
    <summary>${t('upload_summary')}</summary>
    <label class="field" for="file">${t('upload_label')}
      <input type="file" id="file" accept="audio/*,.webm,.ogg,.wav,.mp3,.m4a">
    </label>
    <button type="button" id="upload">${t('upload_button')}</button>
  </details>

  <section id="result" class="result" hidden>
    <h2>${t('saved_title')}</h2>
    <p>${withSlot(t('saved_at', { link: SLOT }), html`<a id="play-link" href="#" target="_blank" rel="noopener"></a>`)}</p>
  </section>

  ${collection.selfEdit ? detailsForm(t, data) : ''}

  <section class="privacy" aria-labelledby="privacy-title">
    <h2 id="privacy-title">${t('privacy_title')}</h2>
    <p id="privacy-note"${collection.privacyNote ? html` dir="auto"` : ''}>${collection.privacyNote ?? t('privacy_default')}</p>
  </section>

  <noscript><p class="status">${t('noscript')}</p></noscript>
  <script type="application/json" id="recorder-messages">${jsonForScript(messages)}</script>
</main>`;
  return personPageLayout(
    data.locale,
    t('title', { name: isolate(person.displayName, textDirection(data.locale)) }),
    data.styleUrl,
    body,
    [data.scriptUrl, data.guideScriptUrl],
    collection.brandStyleUrl ? [collection.brandStyleUrl] : [],
  );
}

type Translate = ReturnType<typeof translator>;

/** What a returning person has: their recording to hear, download or delete, and their play link. */
function currentRecording(t: Translate, data: RecorderPageData): SafeHtml {
  return html`<section class="current" aria-labelledby="current-title">
    <h2 id="current-title">${t('current_title')}</h2>
    <audio controls preload="none" src="${data.downloadUrl}"></audio>
    <p><a href="${data.downloadUrl}" download>${t('download')}</a></p>
    ${
      data.playLink
        ? html`<label class="field" for="own-play-link">${t('play_link')}</label>
    <div class="copy-row"><input id="own-play-link" readonly value="${data.playLink}"><button type="button" data-copy="own-play-link">${t('copy')}</button></div>`
        : ''
    }
    ${
      data.signatureHtml
        ? html`<details class="signature"><summary>${t('signature_summary')}</summary>
      <p id="signature-help">${t('signature_help')}</p>
      <label class="field" for="signature-html">${t('signature_summary')}</label>
      <div class="copy-row"><textarea id="signature-html" readonly rows="4" aria-describedby="signature-help">${data.signatureHtml}</textarea><button type="button" data-copy="signature-html">${t('copy')}</button></div>
    </details>`
        : ''
    }
    <details><summary>${t('delete_summary')}</summary>
      <form method="post" action="${data.deleteUrl}">
        <p>${t('delete_explain')}</p>
        <button type="submit" class="danger">${t('delete_button')}</button>
      </form>
    </details>
  </section>`;
}

/**
 * The person corrects how their name is written (the collection's `self_edit`). The phonetic
 * spelling is not repeated here: the field beside the recorder belongs to this form too.
 */
function detailsForm(t: Translate, data: RecorderPageData): SafeHtml {
  const { person } = data;
  const labels = {
    display_name: t('display_name'),
    preferred_name: t('preferred_name'),
    pronouns: t('pronouns'),
    phonetic_spelling: t('phonetic'),
  };
  const invalid = (field: keyof typeof labels) =>
    data.detailsError === field ? html` aria-invalid="true" aria-describedby="details-error"` : html``;
  return html`<details class="details" id="details"${data.detailsError ? html` open` : ''}>
    <summary>${t('details_summary')}</summary>
    ${data.detailsError ? html`<p class="error" id="details-error" role="alert">${t('details_invalid', { field: labels[data.detailsError] })}</p>` : ''}
    <form method="post" action="${data.detailsUrl}" id="details-form">
      <label class="field" for="display-name">${labels.display_name}
        <input id="display-name" name="display_name" maxlength="200" required autocomplete="name" value="${person.displayName}" dir="auto"${invalid('display_name')}>
      </label>
      <label class="field" for="preferred-name">${labels.preferred_name} <span class="optional">${t('optional')}</span>
        <input id="preferred-name" name="preferred_name" maxlength="100" autocomplete="nickname" value="${person.preferredName ?? ''}" dir="auto"${invalid('preferred_name')}>
      </label>
      <label class="field" for="pronouns">${labels.pronouns} <span class="optional">${t('optional')}</span>
        <input id="pronouns" name="pronouns" maxlength="40" placeholder="${t('pronouns_placeholder')}" value="${person.pronouns ?? ''}" dir="auto"${invalid('pronouns')}>
      </label>
      <button type="submit">${t('save')}</button>
    </form>
  </details>`;
}

export function recorderNotFoundPage(styleUrl: string, locale: Locale = 'en'): SafeHtml {
  const t = translator(locale, 'recorder');
  return personPageLayout(
    locale,
    t('not_found_title'),
    styleUrl,
    html`<main class="recorder"><h1>${t('not_found_title')}</h1>
<p>${t('not_found_body')}</p></main>`,
  );
}
