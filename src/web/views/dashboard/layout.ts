/**
 * The dashboard's page frame: navigation, who is signed in, the sign-out button and notices.
 * Plain HTML forms throughout, so every page works without JavaScript; the few pages that run
 * one of our small scripts (`scripts`, such as a copy button or the ceremony reader) only add to
 * what already works, and their routes allow them in the CSP, which forbids scripts on every
 * other page. Every state-changing form carries the session's form token through `csrfField`.
 */
import { html, type SafeHtml } from '../../html.js';

export type Section =
  'overview' | 'collections' | 'api-keys' | 'webhooks' | 'profiles' | 'members' | 'lti' | 'audit' | 'organisations';

/** A member's role in the organisation (viewer < admin < owner). */
export type Role = 'owner' | 'admin' | 'viewer';

export interface Viewer {
  /** The signed-in person. */
  email: string;
  csrfToken: string;
  /** The organisation the session acts in (its e-mail is its name) and the person's role there; absent before picking one. */
  organisation?: string;
  role?: Role;
}

/** True when the viewer may use forms that change something (admins and owners). */
export const canChange = (viewer: Viewer): boolean => viewer.role === 'admin' || viewer.role === 'owner';

export interface LayoutData {
  title: string;
  styleUrl: string;
  viewer?: Viewer | null;
  section?: Section;
  /** A one-line success message (fixed texts chosen by the route, never request input). */
  notice?: string | null;
  body: SafeHtml;
  /** Our own script URLs (content-hashed assets), loaded deferred; the page must work without them. */
  scripts?: string[];
  /** Extra style sheets after the dashboard's own. */
  styles?: string[];
  /** Class of <body>, for pages laid out differently (the ceremony reader). */
  bodyClass?: string;
  /** A web app manifest (the installable reader); fetched with the session, since it names the collection. */
  manifest?: string;
  /** Where the browser goes next at once (a meta refresh), for hand-offs a redirect cannot make. */
  refreshTo?: string;
}

export const csrfField = (token: string): SafeHtml => html`<input type="hidden" name="csrf" value="${token}">`;

/** A POST form with a single button (and the form token). */
export const actionButton = (action: string, label: string, csrfToken: string, className = ''): SafeHtml =>
  html`<form method="post" action="${action}" class="inline">${csrfField(csrfToken)}<button type="submit" class="${className}">${label}</button></form>`;

/** An ISO timestamp as `2026-01-31 14:05 UTC` in a <time> element; "Never" for null. */
export function when(iso: string | null, never = 'Never'): SafeHtml {
  if (iso === null) return html`<span class="muted">${never}</span>`;
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

const NAV: { section: Section; href: string; label: string; roles: readonly Role[] }[] = [
  { section: 'overview', href: '/dashboard', label: 'Overview', roles: ['viewer', 'admin', 'owner'] },
  { section: 'collections', href: '/dashboard/collections', label: 'Collections', roles: ['viewer', 'admin', 'owner'] },
  { section: 'api-keys', href: '/dashboard/api-keys', label: 'API keys', roles: ['viewer', 'admin', 'owner'] },
  { section: 'webhooks', href: '/dashboard/webhooks', label: 'Webhooks', roles: ['viewer', 'admin', 'owner'] },
  { section: 'profiles', href: '/dashboard/profiles', label: 'Agent profiles', roles: ['viewer', 'admin', 'owner'] },
  { section: 'members', href: '/dashboard/members', label: 'Members', roles: ['admin', 'owner'] },
  { section: 'lti', href: '/dashboard/lti', label: 'LMS', roles: ['admin', 'owner'] },
  { section: 'audit', href: '/dashboard/audit', label: 'Audit log', roles: ['owner'] },
];

const VIEWER_NOTE = 'You are a viewer in this organisation: you can look at everything here, but not change anything.';

export function layout(data: LayoutData): SafeHtml {
  const viewer = data.viewer ?? null;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${data.title} · voicename dashboard</title>
<link rel="stylesheet" href="${data.styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${data.refreshTo ? html`<meta http-equiv="refresh" content="0; url=${data.refreshTo}">\n` : ''}${data.manifest ? html`<link rel="manifest" href="${data.manifest}" crossorigin="use-credentials">\n` : ''}${(data.styles ?? []).map((url) => html`<link rel="stylesheet" href="${url}">\n`)}${(data.scripts ?? []).map((url) => html`<script src="${url}" defer></script>\n`)}</head>
<body${data.bodyClass ? html` class="${data.bodyClass}"` : ''}>
<header class="top">
  <a class="brand" href="/dashboard">voicename <span>dashboard</span></a>
  ${
    viewer
      ? html`<nav aria-label="Dashboard">${NAV.filter(
          (item) => viewer.role !== undefined && item.roles.includes(viewer.role),
        ).map(
          (item) =>
            html`<a href="${item.href}"${item.section === data.section ? html` aria-current="page"` : ''}>${item.label}</a>`,
        )}</nav>
  <div class="who"><span id="signed-in-as">${viewer.email}</span>
    ${
      viewer.organisation === undefined
        ? ''
        : html`<a id="organisation" href="/dashboard/organisations" title="Switch organisation">${viewer.organisation}<span class="muted"> · ${viewer.role ?? ''}</span></a>`
    }
    <form method="post" action="/dashboard/sign-out" class="inline">${csrfField(viewer.csrfToken)}<button type="submit" class="link">Sign out</button></form>
  </div>`
      : ''
  }
</header>
<main id="main">
${data.notice ? html`<p class="notice" role="status">${data.notice}</p>` : ''}
${viewer?.role === 'viewer' && data.section !== undefined ? html`<p class="muted" id="viewer-note">${VIEWER_NOTE}</p>` : ''}
${data.body}
</main>
</body>
</html>`;
}

export function errorPage(data: {
  styleUrl: string;
  viewer?: Viewer | null;
  title: string;
  message: string;
  /** What to do next; defaults to a link back to the dashboard. */
  next?: SafeHtml;
}): SafeHtml {
  return layout({
    title: data.title,
    styleUrl: data.styleUrl,
    viewer: data.viewer ?? null,
    body: html`<section class="card narrow">
<h1>${data.title}</h1>
<p id="error-message">${data.message}</p>
${data.next ?? html`<p><a href="/dashboard">Back to the dashboard</a></p>`}
</section>`,
  });
}

/**
 * The page in front of every destructive or weighty form: what will happen, one button that
 * posts the form (with the form token), and a way back. Every confirmation in the dashboard
 * goes through here, so they read and behave alike.
 */
export function confirmationPage(data: {
  styleUrl: string;
  viewer: Viewer;
  section: Section;
  title: string;
  heading: SafeHtml;
  /** The facts and the consequence, as paragraphs. */
  details: SafeHtml;
  action: string;
  actionLabel: string;
  /** `danger` for what cannot be undone. */
  tone: 'danger' | 'primary';
  cancelHref: string;
  /** Extra class of the card (e.g. `webhook`, which lets long URLs wrap). */
  cardClass?: string;
}): SafeHtml {
  return layout({
    title: data.title,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: data.section,
    body: html`<section class="card narrow${data.cardClass ? html` ${data.cardClass}` : ''}">
<h1>${data.heading}</h1>
${data.details}
<div class="row">
  ${actionButton(data.action, data.actionLabel, data.viewer.csrfToken, data.tone)}
  <a href="${data.cancelHref}" class="button">Cancel</a>
</div>
</section>`,
  });
}
