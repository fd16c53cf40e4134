/**
 * The recorder page at `{BASE_URL}/r/<token>`: one person records their name. Works on phone
 * screens, every control is a native button or input (keyboard and screen readers), and the
 * script is our own (no third-party code). Without JavaScript it says so plainly.
 */
import { html, type SafeHtml } from '../html.js';

export interface RecorderPageData {
  displayName: string;
  phoneticSpelling: string | null;
  hasRecording: boolean;
  /** The organiser asked for a new recording with this note (null: no request). */
  reviewNote: string | null;
  uploadUrl: string;
  /** The person's own recording as a download, and the form that deletes it. */
  downloadUrl: string;
  deleteUrl: string;
  scriptUrl: string;
  styleUrl: string;
  maxSeconds: number;
  maxUploadBytes: number;
}

function layout(title: string, styleUrl: string, body: SafeHtml, scriptUrl?: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="${styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
${body}
${scriptUrl ? html`<script src="${scriptUrl}" defer></script>` : ''}
</body>
</html>`;
}

export function recorderPage(data: RecorderPageData): SafeHtml {
  const body = html`<main class="recorder" id="recorder" data-state="idle" data-upload-url="${data.uploadUrl}"
  data-max-seconds="${data.maxSeconds}" data-max-bytes="${data.maxUploadBytes}">
  <p class="eyebrow">Record how your name is said</p>
  <h1 class="name">${data.displayName}</h1>
  ${
    data.reviewNote !== null
      ? html`<section class="review-request" aria-labelledby="review-request-title">
    <h2 id="review-request-title">Please record your name again</h2>
    <p class="review-note">${data.reviewNote}</p>
  </section>`
      : data.hasRecording
        ? html`<p class="note">You already have a recording. A new one replaces it.</p>`
        : ''
  }
  ${
    data.hasRecording
      ? html`<section class="current" aria-labelledby="current-title">
    <h2 id="current-title">Your recording</h2>
    <audio controls preload="none" src="${data.downloadUrl}"></audio>
    <p><a href="${data.downloadUrl}" download>Download it</a></p>
    <details><summary>Delete it</summary>
      <form method="post" action="${data.deleteUrl}">
        <p>Your recording is deleted everywhere, and your play link stops playing until you record again.</p>
        <button type="submit" class="danger">Delete my recording</button>
      </form>
    </details>
  </section>`
      : ''
  }

  <label class="field" for="phonetic">Phonetic spelling <span class="optional">(optional)</span>
    <input id="phonetic" name="phonetic_spelling" maxlength="100" autocomplete="off"
      placeholder="e.g. shiv-AWN nee VREE-in" value="${data.phoneticSpelling ?? ''}">
    <span class="hint">Write it the way it sounds, with the stressed part in capitals.</span>
  </label>

  <p id="status" class="status" role="status" aria-live="polite">Press “Start recording”. Your browser will ask to use the microphone.</p>
  <p id="countdown" class="countdown" aria-live="assertive" hidden></p>
  <div class="meter" id="meter" hidden><div class="meter-fill" id="meter-fill"></div></div>
  <p id="timer" class="timer" hidden></p>

  <div class="controls">
    <button type="button" id="start" class="primary">Start recording</button>
    <button type="button" id="stop" class="primary" hidden>Stop</button>
    <button type="button" id="listen" hidden>Listen</button>
    <button type="button" id="rerecord" hidden>Record again</button>
    <button type="button" id="submit" class="primary" hidden>Submit</button>
  </div>
  <audio id="preview" controls preload="auto" hidden></audio>

  <details class="upload" id="upload-box">
    <summary>Upload a file instead</summary>
    <label class="field" for="file">Audio file (WebM, Ogg, WAV, MP3 or M4A, up to 5 MB)
      <input type="file" id="file" accept="audio/*,.webm,.ogg,.wav,.mp3,.m4a">
    </label>
    <button type="button" id="upload">Upload file</button>
  </details>

  <section id="result" class="result" hidden>
    <h2>Saved. Thank you!</h2>
    <p>Your name is now at <a id="play-link" href="#" target="_blank" rel="noopener"></a></p>
  </section>

  <noscript><p class="status">Recording needs JavaScript. Please turn it on, or ask for another way to send your recording.</p></noscript>
</main>`;
  return layout(`Record your name: ${data.displayName}`, data.styleUrl, body, data.scriptUrl);
}

export function recorderNotFoundPage(styleUrl: string): SafeHtml {
  return layout(
    'Recording link not valid',
    styleUrl,
    html`<main class="recorder"><h1>This recording link is not valid</h1>
<p>It may have been replaced by a newer link. Ask the person who sent it for a new one.</p></main>`,
  );
}
