/**
 * The documentation pages: the landing page, one page per guide, and the frame of the API
 * reference (which Scalar fills in the browser). Guides are plain server-rendered HTML with no
 * script; the sidebar sits beside the article on wide screens and above it on a phone, where
 * "On this page" folds into a <details>.
 */
import { html, type SafeHtml } from '../../web/html.js';
import type { Guide } from './guides.js';

export const REFERENCE_PATH = '/docs/reference';

interface Frame {
  styleUrl: string;
  title: string;
  description: string;
  /** Absolute, on BASE_URL: the dashboard and the home page may be served elsewhere than the docs. */
  links: { home: string; dashboard: string };
}

function head(frame: Frame, extra: SafeHtml | string = ''): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title}</title>
<meta name="description" content="${frame.description}">
<link rel="stylesheet" href="${frame.styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${extra}
</head>`;
}

function topBar(frame: Frame, current: 'guides' | 'reference'): SafeHtml {
  const mark = (section: typeof current) => (section === current ? html` aria-current="page"` : '');
  return html`<header class="top">
  <a class="brand" href="${frame.links.home}">voicename <span class="brand-sub">docs</span></a>
  <nav aria-label="Documentation">
    <a href="/docs"${mark('guides')}>Guides</a>
    <a href="${REFERENCE_PATH}"${mark('reference')}>API reference</a>
    <a href="${frame.links.dashboard}" class="button">Dashboard</a>
  </nav>
</header>`;
}

function guideLinks(guides: readonly Guide[], current: string | null): SafeHtml {
  return html`<p class="sidebar-title">Guides</p>
  <ul>
    ${guides.map(
      (g) => html`<li><a href="/docs/${g.slug}"${g.slug === current ? html` aria-current="page"` : ''}>${g.title}</a></li>`,
    )}
  </ul>
  <p class="sidebar-title">Reference</p>
  <ul>
    <li><a href="${REFERENCE_PATH}">API reference</a></li>
    <li><a href="/v1/openapi.json">OpenAPI document (JSON)</a></li>
  </ul>`;
}

/**
 * The same links twice: a sidebar on wide screens, a folded menu on phones (so the article starts
 * on the first screen). CSS shows one of them; the other is `display: none`, hidden from screen
 * readers too.
 */
function sidebar(guides: readonly Guide[], current: string | null): SafeHtml {
  return html`<details class="nav-phone"><summary>All guides</summary><nav aria-label="Guides">${guideLinks(guides, current)}</nav></details>
<nav class="sidebar" aria-label="Guides">
  ${guideLinks(guides, current)}
</nav>`;
}

function page(frame: Frame, guides: readonly Guide[], current: string | null, main: SafeHtml): SafeHtml {
  return html`<!doctype html>
<html lang="en">
${head(frame)}
<body>
<a class="skip" href="#content">Skip to content</a>
${topBar(frame, 'guides')}
<div class="docs">
${sidebar(guides, current)}
<main id="content">
${main}
</main>
</div>
<footer class="foot"><p>voicename · <a href="/docs">Guides</a> · <a href="${REFERENCE_PATH}">API reference</a> · <a href="${frame.links.dashboard}">Dashboard</a></p></footer>
</body>
</html>`;
}

export function landingPage(frame: Omit<Frame, 'title' | 'description'>, guides: readonly Guide[]): SafeHtml {
  const main = html`<h1>voicename documentation</h1>
<p class="lead">Collect recordings of people saying their own names, publish them as play links, and hear about every new recording through signed webhooks. New here? Start with the <a href="/docs/quick-start">quick start</a>.</p>
<ul class="cards">
  <li><a href="${REFERENCE_PATH}"><strong>API reference</strong><span>Every <code>/v1</code> endpoint and the agent API, with their parameters, answers and errors, from the OpenAPI document.</span></a></li>
  ${guides.map((g) => html`<li><a href="/docs/${g.slug}"><strong>${g.title}</strong><span>${g.summary}</span></a></li>`)}
</ul>`;
  return page(
    { ...frame, title: 'voicename documentation', description: 'Guides and API reference for voicename.' },
    guides,
    null,
    main,
  );
}

export function guidePage(frame: Omit<Frame, 'title' | 'description'>, guides: readonly Guide[], guide: Guide): SafeHtml {
  const toc =
    guide.sections.length > 1
      ? html`<details class="toc" open><summary>On this page</summary><ul>${guide.sections.map(
          (s) => html`<li><a href="#${s.id}">${s.text}</a></li>`,
        )}</ul></details>`
      : '';
  const main = html`<article class="guide"><h1>${guide.title}</h1>${toc}${guide.body}</article>`;
  return page({ ...frame, title: `${guide.title} · voicename docs`, description: guide.summary }, guides, guide.slug, main);
}

export function notFoundPage(frame: Omit<Frame, 'title' | 'description'>, guides: readonly Guide[]): SafeHtml {
  const main = html`<h1>No such page</h1><p>This guide does not exist. The <a href="/docs">documentation home</a> lists them all.</p>`;
  return page({ ...frame, title: 'Not found · voicename docs', description: 'No such page.' }, guides, null, main);
}

export interface ReferenceData {
  /** Scalar's bundle, then our own small script for it (both from this origin). */
  scriptUrls: string[];
  /** Scalar's configuration, read by its bundle from the data attribute (no inline script). */
  configuration: Record<string, unknown>;
  specUrl: string;
}

export function referencePage(frame: Omit<Frame, 'title' | 'description'>, data: ReferenceData): SafeHtml {
  const full: Frame = { ...frame, title: 'API reference · voicename docs', description: 'The voicename API reference.' };
  return html`<!doctype html>
<html lang="en">
${head(full)}
<body class="reference-page">
<a class="skip" href="#api-reference-root">Skip to content</a>
${topBar(full, 'reference')}
<main id="api-reference-root">
<noscript><p class="noscript">The interactive reference needs JavaScript. The <a href="${data.specUrl}">OpenAPI document</a> describes the same API, and the <a href="/docs">guides</a> work without it.</p></noscript>
<script id="api-reference" type="application/json" data-url="${data.specUrl}" data-configuration="${JSON.stringify(data.configuration)}"></script>
</main>
${data.scriptUrls.map(
  (url) => html`<script src="${url}"></script>
`,
)}
</body>
</html>`;
}
