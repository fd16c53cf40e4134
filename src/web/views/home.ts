/**
 * The product page at the root of the site: what voicename is, and where people (sign in, API
 * reference) and agents (discovery document, llms.txt) go next. No script; readable at 390 px.
 */
import { html, type SafeHtml } from '../html.js';

export interface HomeData {
  styleUrl: string;
  /** Absolute URLs, so the page is right on whichever host serves it. */
  links: { dashboard: string; docs: string; discovery: string; llmsTxt: string; profileExample: string };
  agentPrice: string;
}

export function homePage(data: HomeData): SafeHtml {
  const { links } = data;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>voicename · hear how to say every name</title>
<meta name="description" content="Name pronunciation recordings for organisations: each person records their own name once, and everyone who needs to say it can hear it.">
<link rel="stylesheet" href="${data.styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<header class="top">
  <span class="brand">voicename</span>
  <nav aria-label="Site">
    <a href="${links.docs}">API docs</a>
    <a href="${links.dashboard}" class="button">Sign in</a>
  </nav>
</header>
<main>
<section class="hero">
  <h1>Hear how to say every name before you say it.</h1>
  <p class="lead">voicename collects short recordings of people saying their own names, for organisations: the registrar reading 500 graduates’ names at a ceremony, the HR team welcoming 2,000 new colleagues, the conference introducing 300 speakers.</p>
  <p class="cta">
    <a class="button primary" href="${links.dashboard}" id="sign-in">Sign in to the dashboard</a>
    <a class="button" href="${links.docs}" id="api-docs">Read the API docs</a>
  </p>
</section>
<section class="features" aria-label="How it works">
  <article>
    <h2>Collect</h2>
    <p>Add people to a collection from a CSV file or the API. Each one gets a private link and records their name in the browser, on a phone or a laptop: no app, no account.</p>
  </article>
  <article>
    <h2>Share</h2>
    <p>Every recording becomes a play link: a small player page, a direct MP3, an embeddable widget and JSON metadata, for e-mail signatures, directories and ceremony scripts.</p>
  </article>
  <article>
    <h2>Integrate</h2>
    <p>A REST API with keys, and signed webhooks that tell your systems the moment someone has recorded. Manage keys and webhooks in the dashboard.</p>
  </article>
</section>
<section class="agents" id="agents">
  <h2>For AI agents</h2>
  <p>An agent or bot can publish a pronounced profile of itself, with a public page and a spoken recording of its name, at an address like <code>${links.profileExample}</code>. No account or key: it pays ${data.agentPrice} per profile through the machine payment flow.</p>
  <ul>
    <li><a href="${links.discovery}" id="agent-discovery">Discovery document</a> <span class="muted">(what the agent API offers, as JSON)</span></li>
    <li><a href="${links.llmsTxt}" id="llms-txt">llms.txt</a> <span class="muted">(the agent API explained for language models)</span></li>
  </ul>
</section>
</main>
<footer class="foot">
  <p>voicename · <a href="${links.dashboard}">Dashboard</a> · <a href="${links.docs}">API docs</a> · <a href="${links.llmsTxt}">llms.txt</a></p>
</footer>
</body>
</html>`;
}
