/**
 * What the features add to the API document beyond the /v1 routes Fastify describes: their
 * public routes, the agent API (the same definitions as its own document at SITE_URL), the
 * webhook events, and the tags in the order the reference shows them.
 */
import type { Deps } from './deps.js';
import { AGENTS_TAG, agentPaths } from './features/agent-api/openapi.js';
import { playLinkPublicPaths } from './features/play-links/openapi.js';
import { webhooksObject } from './features/webhooks/openapi.js';
import type { DocumentContributions } from './http/openapi/document.js';

const TAGS = [
  { name: 'Collections', description: 'Groups of people whose names you collect: a class, a graduation, a team.' },
  { name: 'Users', description: 'The people in a collection, added one at a time, in batches of up to 1,000, or from CSV.' },
  { name: 'Invitations', description: 'E-mail people their record link, and remind them.' },
  { name: 'Recordings', description: "A person's recorded name: upload audio, or let them record in the browser." },
  { name: 'Play links', description: 'Where a recording is published: player page, .mp3, 200x40 embed and JSON.' },
  { name: 'Webhooks', description: 'Signed, retried notifications such as `recording.completed`, and their delivery log.' },
  { name: 'Exports', description: 'Everything in a collection, or about one person, as CSV or ZIP.' },
  { name: 'Erasures', description: 'Proof of what was erased and when, free of personal data.' },
  { name: 'Agents', description: AGENTS_TAG },
];

export function apiDocumentContributions(deps: Deps): DocumentContributions {
  return {
    paths: { ...playLinkPublicPaths(), ...agentPaths(deps) },
    webhooks: webhooksObject(),
    tags: TAGS,
  };
}
