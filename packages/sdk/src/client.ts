import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import type { ApiClient } from './request.js';
import { Collections } from './resources/collections.js';
import { Erasures } from './resources/erasures.js';
import { Invitations } from './resources/invitations.js';
import { PlayLinks } from './resources/play-links.js';
import { Recordings } from './resources/recordings.js';
import { Users } from './resources/users.js';
import { Webhooks } from './resources/webhooks.js';
import { createTransport, type FetchFunction } from './transport.js';

export const DEFAULT_BASE_URL = 'http://localhost:3000';

export interface VoicenameOptions {
  /** An API key, `vn_…`. */
  apiKey: string;
  /** The service's address, without `/v1`. Default `http://localhost:3000`. */
  baseUrl?: string;
  /** A `fetch` to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: FetchFunction;
  /** Retries after the first attempt, for answers and failures that are safe to retry. Default 2. */
  maxRetries?: number;
  /** Time limit of each attempt until the answer's headers arrive, in milliseconds. Default 60,000. */
  timeoutMs?: number;
}

/**
 * The voicename API client. Resource methods return the answer's data and throw `VoicenameError`;
 * `api` is the underlying typed openapi-fetch client (same key, retries and idempotency) for
 * anything else, answering `{ data, error, response }`.
 */
export class Voicename {
  readonly api: ApiClient;
  readonly collections: Collections;
  readonly users: Users;
  readonly recordings: Recordings;
  readonly playLinks: PlayLinks;
  readonly webhooks: Webhooks;
  readonly invitations: Invitations;
  readonly erasures: Erasures;

  constructor(options: VoicenameOptions) {
    if (!options.apiKey) throw new TypeError('Voicename: apiKey is required.');
    const transport = createTransport({
      apiKey: options.apiKey,
      // Looked up at call time, so a fetch replaced later (test doubles) is the one used.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      maxRetries: options.maxRetries ?? 2,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
    this.api = createClient<paths>({ baseUrl: options.baseUrl ?? DEFAULT_BASE_URL, fetch: transport });
    this.collections = new Collections(this.api);
    this.users = new Users(this.api);
    this.recordings = new Recordings(this.api);
    this.playLinks = new PlayLinks(this.api);
    this.webhooks = new Webhooks(this.api);
    this.invitations = new Invitations(this.api);
    this.erasures = new Erasures(this.api);
  }
}
