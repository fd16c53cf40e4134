/**
 * The product page at the root of the site, written for organisers: what voicename does for a
 * registrar, an HR team and an event organiser, a sample name to hear, how it works, privacy, and
 * the way in (the dashboard). Developers' and agents' material (API docs, discovery document,
 * llms.txt) sits in one small section at the end. No script: the sample plays in the browser's
 * own `<audio controls>`. Readable at 390 px.
 */
import { html, type SafeHtml } from '../html.js';

export interface HomeData {
  styleUrl: string;
  /** Absolute URLs, so the page is right on whichever host serves it. */
  links: {
    dashboard: string;
    docs: string;
    pronunciationGuide: string;
    privacyGuide: string;
    discovery: string;
    llmsTxt: string;
    profileExample: string;
  };
  /** A name read by the computer voice from its pronunciation guide. */
  sample: { name: string; respelling: string; audioUrl: string };
  agentPrice: string;
}

export function homePage(data: HomeData): SafeHtml {
  const { links, sample } = data;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>voicename · hear how to say every name</title>
<meta name="description" content="Each person records their own name once, on their phone. Everyone who has to say it (the registrar at graduation, a new colleague, the host introducing speakers) can listen first.">
<link rel="stylesheet" href="${data.styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="top">
  <span class="brand">voicename</span>
  <nav aria-label="Site">
    <a href="#developers">For developers</a>
    <a href="${links.dashboard}" class="button">Sign in</a>
  </nav>
</header>
<main>
<section class="hero" aria-labelledby="hero-title">
  <h1 id="hero-title">Hear how to say every name before you say it.</h1>
  <p class="lead">voicename collects short recordings of people saying their own names. Each person records once, on their phone or laptop. Whoever has to say the name (the registrar reading 500 graduates’ names, a new colleague’s team, the host introducing speakers) listens first.</p>
  <p class="cta">
    <a class="button primary" href="${links.dashboard}" id="start-collection">Start a collection</a>
    <a class="button" href="${links.dashboard}" id="sign-in">Sign in</a>
  </p>
  <p class="muted small">No password: you sign in with a link sent to your e-mail address, and your first sign-in creates your organisation.</p>
</section>

<section class="sample" aria-labelledby="sample-title">
  <h2 id="sample-title">Hear a name</h2>
  <p class="sample-name"><span>${sample.name}</span> <span class="respelling">${sample.respelling}</span></p>
  <audio controls preload="metadata" src="${sample.audioUrl}" id="sample-audio" aria-describedby="sample-note">
    <a href="${sample.audioUrl}">Download the sample (MP3)</a>
  </audio>
  <p class="muted" id="sample-note">A pronunciation guide read by the computer voice: “${sample.name}, ${sample.respelling}”. When someone records their name, you hear their own voice instead.</p>
</section>

<section aria-labelledby="uses-title">
  <h2 id="uses-title">Who it is for</h2>
  <div class="cards">
    <article>
      <h3>Registrars: graduation</h3>
      <p>Import your graduates from a spreadsheet (a CSV file) and invite them by e-mail. Each records their name on their phone, in English, Spanish, French, German, Arabic or Chinese. Listen to each recording and approve it, or ask for a new one with a note, from the people table or with the keyboard in review mode.</p>
      <p>On the day, the reader shows and plays each name in your line-up order. Once it has saved the recordings on the laptop it keeps working without a network, even after a reload. Print name cards with a QR code; a phone at the stage stairs scans each card and brings that graduate up on the reader.</p>
    </article>
    <article>
      <h3>HR: new colleagues</h3>
      <p>Add people as they join, from a CSV file or from your HR system through the API. Each recording gets a play link: a small player page, an MP3 and a “Hear my name” badge for an e-mail signature, so colleagues and customers say the name right from the first meeting.</p>
    </article>
    <article>
      <h3>Event organisers: speakers</h3>
      <p>Collect your speakers’ names before the event. The host listens beforehand, or runs the reader on stage with each name and its respelling on screen.</p>
    </article>
  </div>
</section>

<section aria-labelledby="guides-title">
  <h2 id="guides-title">For people who never record</h2>
  <p>Not everyone records. For every person, voicename proposes a pronunciation guide from the written name: a respelling an English speaker can read aloud (<span class="respelling">shiv-AWN</span>), IPA, and the computer voice reading it. The person can correct the guide and approve it on their record page; until then it is labelled a computer guess, not checked. Your progress shows who is covered by their own voice, an approved computer voice, a guide only, or nothing yet.</p>
  <p><a href="${links.pronunciationGuide}">How pronunciation guides work</a></p>
</section>

<section aria-labelledby="steps-title">
  <h2 id="steps-title">How it works</h2>
  <ol class="steps">
    <li><strong>Make a collection and add people</strong>, from a CSV file or one by one.</li>
    <li><strong>Invite them.</strong> Each person gets a private link and records their name in the browser, on a phone or a laptop: no app, no account.</li>
    <li><strong>Listen, approve, use.</strong> Review the recordings, then share play links, print name cards or open the reader.</li>
  </ol>
</section>

<section aria-labelledby="privacy-title">
  <h2 id="privacy-title">Privacy</h2>
  <p>People own their recordings: on their record page a person can listen to theirs, download it, record again or delete it, and a deleted recording is gone everywhere. You can erase one person or a whole collection at once; an archived collection is erased for good after 30 days (the default). Each erasure leaves a record that holds no personal data.</p>
  <p><a href="${links.privacyGuide}">What is stored, for how long, and how it is erased</a></p>
</section>

<section class="developers" id="developers" aria-labelledby="developers-title">
  <h2 id="developers-title">For developers and agents</h2>
  <p>voicename also has a REST API with keys, and signed webhooks tell your systems the moment someone has recorded. An AI agent can publish a pronounced profile of itself (at an address like <code>${links.profileExample}</code>) for ${data.agentPrice}, without an account.</p>
  <ul>
    <li><a href="${links.docs}" id="api-docs">API docs and guides</a></li>
    <li><a href="${links.discovery}" id="agent-discovery">Discovery document</a> <span class="muted">(what the agent API offers, as JSON)</span></li>
    <li><a href="${links.llmsTxt}" id="llms-txt">llms.txt</a> <span class="muted">(the agent API explained for language models)</span></li>
  </ul>
</section>
</main>
<footer class="foot">
  <p>voicename · <a href="${links.dashboard}">Sign in</a> · <a href="${links.privacyGuide}">Privacy</a> · <a href="${links.docs}">API docs</a> · <a href="${links.llmsTxt}">llms.txt</a></p>
</footer>
</body>
</html>`;
}
