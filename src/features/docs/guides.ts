/**
 * The guides served under `/docs`, in the sidebar's order: each is `docs/<slug>.md` of the
 * checkout (the same files GitHub shows). A markdown file not listed here is not published, so
 * notes for maintainers (docs/README.md) stay out of the site. Read and rendered once, on the
 * first request for a docs page, and kept for the life of the process.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderGuide, type RenderedGuide } from './render.js';

export interface GuideEntry {
  slug: string;
  /** One line for the landing page. */
  summary: string;
}

export const GUIDES: readonly GuideEntry[] = [
  { slug: 'quick-start', summary: 'An API key, a collection, a person, a recording, a play link and a webhook, in ten minutes.' },
  { slug: 'recordings', summary: 'People in a collection, custom fields, CSV imports, uploads, the recorder page and review.' },
  {
    slug: 'pronunciation',
    summary: 'Pronunciation guides: the respelling key, how guides are made and approved, the API, agents and quality.',
  },
  { slug: 'play-links', summary: 'The public player, MP3, embed widget, metadata, oEmbed, preview cards and rotation.' },
  { slug: 'webhooks', summary: 'Events, signatures, retries, the delivery log and receiver code for Node, Python and Go.' },
  { slug: 'events', summary: 'Every event type webhooks receive, with its JSON Schema and an example.' },
  { slug: 'invitations', summary: 'Inviting people by e-mail to record their names, reminders and collection branding.' },
  { slug: 'exports', summary: 'A collection as CSV or as a ZIP of its recordings.' },
  { slug: 'entities', summary: 'Agent profiles: the paid API for AI agents, no account needed (HTTP 402, MPP, MCP).' },
  {
    slug: 'lti',
    summary: 'voicename in Canvas, Moodle and other LMSs (LTI 1.3): launches, roster sync, deep linking, the settings to paste.',
  },
  { slug: 'dashboard', summary: 'Organisations, members and roles, collections, keys and webhooks for people, not programs.' },
  {
    slug: 'sso',
    summary: 'Single sign-on with OpenID Connect: Entra ID, Okta and Google Workspace settings, verified domains, SSO required.',
  },
  { slug: 'scim', summary: 'Provisioning people from Entra ID or Okta with SCIM 2.0: groups become collections.' },
  { slug: 'privacy', summary: 'What is stored, for how long, and how people and collections are erased.' },
  { slug: 'deploy', summary: 'Running voicename on one machine with systemd, backups and restores.' },
];

export interface Guide extends GuideEntry, RenderedGuide {}

const DOCS_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));

/** The reader's own server as the markdown files name it (`npm start`'s default address). */
export const DOCUMENTED_SERVER_URL = 'http://localhost:3000';

/**
 * `serverUrl`: the address of the server serving the pages (its BASE_URL), written where the
 * markdown says `http://localhost:3000`, so a reader of the served docs copies commands for the
 * server in front of them, on whichever host and port. The files keep the plain fact.
 */
export function loadGuides(serverUrl: string = DOCUMENTED_SERVER_URL, dir: string = DOCS_DIR): Guide[] {
  const slugs = new Set(GUIDES.map((g) => g.slug));
  return GUIDES.map((entry) => {
    const markdown = fs.readFileSync(`${dir}${entry.slug}.md`, 'utf8').replaceAll(DOCUMENTED_SERVER_URL, serverUrl);
    const rendered = renderGuide(markdown, slugs);
    return { ...entry, ...rendered, title: rendered.title || entry.slug };
  });
}
