/**
 * SSRF-safe outbound HTTP for customer-supplied URLs (webhooks, agent callbacks).
 *
 * Rules: HTTPS only; the host's addresses are resolved here, every one must be public, and the
 * connection is pinned to the address we checked (undici `connect.lookup`), so DNS rebinding
 * cannot switch it between the check and the connect. IP-literal hosts are checked directly,
 * because Node never calls a custom `lookup` for them. Redirects are never followed (a 3xx is
 * returned as the status). No ambient proxy is used; an explicit `proxyUrl` (the operator's
 * egress proxy) is tunnelled through with CONNECT to the checked address (`outbound-proxy.ts`),
 * so the rules still hold for the final destination. `tls` adds a client certificate (mutual
 * TLS). `allowPrivate` lifts the address and HTTPS rules for local development and tests only.
 *
 * Connections are kept alive and reused, but only per (origin, checked address): every request
 * still resolves and checks the host, and an answer with another address gets another pool, so
 * reuse never carries a request to an address that was not checked for it. Pools idle for a
 * minute are closed, and at most `MAX_POOLS` are open (the least recently used goes first).
 *
 * Self-contained on purpose, with `public-address.ts` (which addresses count as public): only
 * node:, undici and ipaddr.js imports, so other features can copy the pair.
 */
import { promises as dns } from 'node:dns';
import net from 'node:net';
import type { Agent } from 'undici';
import { createHash } from 'node:crypto';
import { type DestinationTls, proxiedConnector } from './outbound-proxy.js';
import { isForbiddenAddress } from './public-address.js';

export interface OutboundRequest {
  url: string;
  /** POST (the default) sends `body`; GET sends none. */
  method?: 'POST' | 'GET';
  headers: Record<string, string>;
  body?: string;
  /** DNS + TCP + TLS budget. Default 5000. */
  connectTimeoutMs?: number;
  /** Whole request budget, from start to the end of reading the response snippet. Default 15000. */
  timeoutMs?: number;
  allowPrivate: boolean;
  /** Resolver override (tests); default is the system resolver (`dns.lookup`, all addresses). */
  lookup?: HostLookup;
  /** How much of the answer to read (default `SNIPPET_BYTES`): a key set or a roster page needs more than a webhook's answer. */
  maxBodyBytes?: number;
  /** The operator's egress proxy (OUTBOUND_PROXY_URL): the request is tunnelled through it with CONNECT. */
  proxyUrl?: string | null;
  /** A client certificate and key (PEM) for mutual TLS, and (tests) a CA to trust for the destination. */
  tls?: DestinationTls;
}

export interface OutboundResponse {
  status: number;
  durationMs: number;
  /** First 2 KB (or `maxBodyBytes`) of the response body, decoded as UTF-8. */
  bodySnippet: string;
  /** The answer's headers, names lower-cased (repeated ones joined with ", "). */
  headers: Record<string, string>;
  /** Whether the body was longer than what was read. */
  truncated: boolean;
}

export type OutboundErrorCode =
  'invalid_url' | 'forbidden_address' | 'dns_failed' | 'connect_failed' | 'timeout' | 'too_many_redirects' | 'network_error';

export class OutboundError extends Error {
  readonly code: OutboundErrorCode;
  constructor(code: OutboundErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
    this.code = code;
  }
}

/** Returns every address the host name resolves to. */
export type HostLookup = (hostname: string) => Promise<string[]>;

export const SNIPPET_BYTES = 2048;
const MAX_POOLS = 256;
const POOL_IDLE_MS = 60_000;
/** Connections per pool: deliveries to one receiver are also capped upstream (per webhook). */
const CONNECTIONS_PER_POOL = 64;
const MAX_URL_LENGTH = 2048;

const systemLookup: HostLookup = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
};

interface Target {
  url: URL;
  /** Host name without IPv6 brackets. */
  host: string;
}

function parseTarget(raw: string, allowPrivate: boolean): Target {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL_LENGTH) {
    throw new OutboundError('invalid_url', `URL must be 1 to ${MAX_URL_LENGTH} characters.`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'URL is not a valid absolute URL.');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw new OutboundError('invalid_url', 'URL must use https.');
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError('invalid_url', 'URL must not contain a user name or password.');
  }
  if (url.hash !== '') throw new OutboundError('invalid_url', 'URL must not contain a fragment.');
  // WHATWG parsing already normalised 0x7f.1, 2130706433, 0177.0.0.1 … to 127.0.0.1.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new OutboundError('invalid_url', 'URL has no host.');
  return { url, host };
}

async function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves the host and returns the address to connect to, after checking every answer
 * (a mix of public and private answers is refused: it is what a rebinding attack looks like).
 */
async function resolvePublicAddress(host: string, lookup: HostLookup, budgetMs: number): Promise<string> {
  if (net.isIP(host) !== 0) {
    if (isForbiddenAddress(host)) throw new OutboundError('forbidden_address', `Address ${host} is not a public address.`);
    return host;
  }
  // RFC 6761: localhost names are loopback whatever a resolver says (and some resolvers say nothing).
  if (/(^|\.)localhost\.?$/i.test(host)) {
    throw new OutboundError('forbidden_address', `${host} is a loopback name.`);
  }
  let addresses: string[];
  try {
    addresses = await withDeadline(
      lookup(host),
      budgetMs,
      () => new OutboundError('timeout', `DNS lookup of ${host} timed out.`),
    );
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    throw new OutboundError('dns_failed', `Could not resolve ${host}.`, { cause: error });
  }
  if (addresses.length === 0) throw new OutboundError('dns_failed', `Could not resolve ${host}.`);
  const forbidden = addresses.find((address) => isForbiddenAddress(address));
  if (forbidden !== undefined) {
    // The message names no address: it must not tell a customer how our resolver sees internal names.
    throw new OutboundError('forbidden_address', `${host} does not resolve to a public address.`);
  }
  return addresses[0]!;
}

/**
 * Registration-time check of a customer URL: syntax, scheme, and (unless `allowPrivate`) that
 * the host resolves only to public addresses. Throws `OutboundError`. Not a security boundary
 * on its own (DNS can change later); `sendOutbound` checks again on every request.
 */
export async function checkOutboundUrl(url: string, options: { allowPrivate: boolean; lookup?: HostLookup }): Promise<void> {
  const target = parseTarget(url, options.allowPrivate);
  if (options.allowPrivate) return;
  await resolvePublicAddress(target.host, options.lookup ?? systemLookup, 5000);
}

/**
 * Why the outbound rules would certainly refuse `url`, or null: for refusing a request before
 * anyone pays for it. Bad syntax or scheme, a literal private address or loopback name, and
 * (with `resolve`) a name whose answers include a forbidden address are refused; a name that
 * does not resolve right now is not (DNS may recover before the URL is used).
 */
export async function outboundRefusal(
  url: string,
  options: { allowPrivate: boolean; resolve: boolean; lookup?: HostLookup },
): Promise<OutboundError | null> {
  try {
    const target = parseTarget(url, options.allowPrivate);
    if (options.allowPrivate) return null;
    if (!options.resolve && net.isIP(target.host) === 0 && !/(^|\.)localhost\.?$/i.test(target.host)) return null;
    await resolvePublicAddress(target.host, options.lookup ?? systemLookup, 2000);
    return null;
  } catch (error) {
    if (error instanceof OutboundError && (error.code === 'invalid_url' || error.code === 'forbidden_address')) return error;
    return null;
  }
}

function classifyFailure(error: unknown, timedOut: boolean): OutboundError {
  if (error instanceof OutboundError) return error;
  if (timedOut) return new OutboundError('timeout', 'The request timed out.', { cause: error });
  const code = (error as { code?: string } | null)?.code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new OutboundError('timeout', 'Connecting timed out.', { cause: error });
  }
  if (
    /^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|ECONNRESET|EPIPE)$/.test(code) ||
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code) ||
    code === 'ERR_TLS_CERT_ALTNAME_INVALID'
  ) {
    return new OutboundError('connect_failed', `Could not connect: ${code || message}.`, { cause: error });
  }
  return new OutboundError('network_error', `Network error: ${code || message}.`, { cause: error });
}

/**
 * Sends one request (POST by default) to a customer URL. Resolves and checks the address itself (unless
 * `allowPrivate`), connects to the checked address, never follows redirects, and reads at most
 * the first 2 KB of the response. Resolves with the status for any HTTP answer (including 3xx,
 * 4xx, 5xx); rejects with `OutboundError` when no HTTP answer arrived in time.
 */
export async function sendOutbound(req: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const connectTimeoutMs = req.connectTimeoutMs ?? 5000;
  const timeoutMs = req.timeoutMs ?? 15000;
  const target = parseTarget(req.url, req.allowPrivate);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new OutboundError('timeout', `No complete response within ${timeoutMs} ms.`));
  }, timeoutMs);

  try {
    const lookup = req.lookup ?? systemLookup;
    // With allowPrivate we still pin when a resolver was injected, so tests see the same path.
    const pinned =
      req.allowPrivate && req.lookup === undefined
        ? undefined
        : await resolvePublicAddressOrAllow(target.host, lookup, connectTimeoutMs, req.allowPrivate);
    // undici loads with the first outbound call, not at boot: an idle process does not carry it.
    const { Agent, request } = await import('undici');
    const proxy = req.proxyUrl ? new URL(req.proxyUrl) : null;
    const destinationTls = req.tls ?? {};
    const agent = pools.get(
      `${target.url.origin} ${pinned ?? '-'} ${connectTimeoutMs} ${req.proxyUrl ?? '-'} ${tlsIdentity(destinationTls)}`,
      () =>
        new Agent({
          connect: proxy
            ? proxiedConnector(proxy, pinned ?? target.host, connectTimeoutMs, destinationTls)
            : {
                timeout: connectTimeoutMs,
                ...destinationTls,
                ...(pinned === undefined ? {} : { lookup: pinnedLookup(pinned) }),
              },
          connections: CONNECTIONS_PER_POOL,
          keepAliveTimeout: 10_000,
          keepAliveMaxTimeout: 30_000,
          pipelining: 1,
        }),
    );
    const response = await request(target.url, {
      method: req.method ?? 'POST',
      headers: req.headers,
      ...(req.method === 'GET' ? {} : { body: req.body ?? '' }),
      dispatcher: agent,
      signal: controller.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const { text, truncated } = await readSnippet(response.body, req.maxBodyBytes ?? SNIPPET_BYTES);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    return {
      status: response.statusCode,
      durationMs: Math.round(performance.now() - started),
      bodySnippet: text,
      headers,
      truncated,
    };
  } catch (error) {
    throw classifyFailure(controller.signal.reason instanceof OutboundError ? controller.signal.reason : error, timedOut);
  } finally {
    clearTimeout(timer);
  }
}

/** Which client certificate a pool presents: pools are never shared between certificates. */
function tlsIdentity(destinationTls: DestinationTls): string {
  const { cert, key, ca } = destinationTls;
  if (cert === undefined && key === undefined && ca === undefined) return '-';
  return createHash('sha256')
    .update(`${cert ?? ''}\0${key ?? ''}\0${ca ?? ''}`)
    .digest('base64url');
}

/** Keep-alive pools by (origin, checked address), least recently used first; idle ones closed. */
class AgentPools {
  private readonly pools = new Map<string, { agent: Agent; usedAt: number }>();
  private sweeper: NodeJS.Timeout | undefined;

  get(key: string, create: () => Agent): Agent {
    const now = Date.now();
    let entry = this.pools.get(key);
    if (entry) this.pools.delete(key);
    else entry = { agent: create(), usedAt: now };
    entry.usedAt = now;
    this.pools.set(key, entry);
    for (const [oldKey, old] of this.pools) {
      if (this.pools.size <= MAX_POOLS) break;
      this.drop(oldKey, old.agent);
    }
    this.sweeper ??= setInterval(() => this.sweep(), POOL_IDLE_MS / 2).unref();
    return entry.agent;
  }

  /** How many pools are open (tests). */
  get size(): number {
    return this.pools.size;
  }

  private sweep(): void {
    const cutoff = Date.now() - POOL_IDLE_MS;
    for (const [key, entry] of this.pools) if (entry.usedAt < cutoff) this.drop(key, entry.agent);
    if (this.pools.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private drop(key: string, agent: Agent): void {
    this.pools.delete(key);
    // close() lets requests under way finish; new ones get a new pool.
    agent.close().catch(() => {});
  }
}

const pools = new AgentPools();

/** Open keep-alive pools (one per origin and checked address). */
export const openOutboundPools = (): number => pools.size;

async function resolvePublicAddressOrAllow(
  host: string,
  lookup: HostLookup,
  budgetMs: number,
  allowPrivate: boolean,
): Promise<string> {
  if (!allowPrivate) return resolvePublicAddress(host, lookup, budgetMs);
  if (net.isIP(host) !== 0) return host;
  const addresses = await withDeadline(lookup(host), budgetMs, () => new OutboundError('timeout', 'DNS lookup timed out.')).catch(
    (error: unknown) => {
      if (error instanceof OutboundError) throw error;
      throw new OutboundError('dns_failed', `Could not resolve ${host}.`, { cause: error });
    },
  );
  if (addresses.length === 0) throw new OutboundError('dns_failed', `Could not resolve ${host}.`);
  return addresses[0]!;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | Array<{ address: string; family: number }>,
  family?: number,
) => void;

/** A `net.connect` lookup that always answers with the address we already checked. */
function pinnedLookup(address: string) {
  const family = net.isIP(address);
  return (_hostname: string, options: { all?: boolean } | LookupCallback, callback?: LookupCallback) => {
    const cb = (typeof options === 'function' ? options : callback) as LookupCallback;
    const all = typeof options === 'object' && options !== null && options.all === true;
    if (all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  };
}

async function readSnippet(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) break; // breaking out destroys the stream; the rest is not read
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  // Do not cut a multi-byte character in half.
  return { text: new TextDecoder('utf-8', { fatal: false }).decode(bytes).replace(/\uFFFD$/, ''), truncated: size > limit };
}
