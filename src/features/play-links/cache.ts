/**
 * Per-process memory of resolved play-link tokens (the public URLs' hot path) and of play counts
 * not yet written to the database.
 *
 * Consistency: an entry lives until it is invalidated, in this process at once
 * (`invalidateToken`/`invalidateUser`) and in the others when the invalidation message arrives
 * (invalidation.ts); `ttlMs` is only the safety net for a lost message. The maps hold at most
 * `maxEntries` each, so memory stays bounded however many tokens are played: eviction is
 * second-chance (CLOCK), which approximates least-recently-used while a hit only sets a flag (moving
 * the hit entry to the end of a 100,000-entry Map on every request cost more than the lookup itself), and a link whose
 * redirect holds a presigned URL is reloaded (re-signed) at `audioLocationRefreshAt`, before the
 * URL expires. A load that started before an invalidation never stores its (possibly stale) result: every
 * invalidation bumps `generation`, and a load only stores when the generation is unchanged.
 * Unknown tokens are cached too (negative entries), in their own map so any user invalidation can
 * drop them all at once: a token that starts resolving again (re-record) is never hidden.
 */

import { EvictionQueue } from '../../lib/eviction-queue.js';

export interface ResolvedPlayLink {
  token: string;
  userId: string;
  collectionId: string;
  displayName: string;
  /** The name the person goes by and their pronouns, shown on the player page when set. */
  preferredName: string | null;
  pronouns: string | null;
  phoneticSpelling: string | null;
  /** The person's pronunciation guide, what `/meta` shows of it (null when they have none). */
  guide: PlayLinkGuide | null;
  blobKey: string;
  mimeType: string;
  byteSize: number;
  durationMs: number;
  recordedAt: string;
  /** Play count in the database when the entry was loaded (pending in-memory plays not included). */
  storedPlayCount: number;
  allowIndexing: boolean;
  /** The collection's default language (a locale of src/i18n, else English) for the pages and images. */
  language: string;
  /** Who the link is from ("From …" on the player page and the preview card): the branding's organisation name, else the collection's name. */
  organisation: string;
  /** The collection's logo (content-addressed PNG), or null. */
  logoUrl: string | null;
  /** The style sheet of the collection's brand colour (`brandStyleUrl`), or null. */
  brandStyleUrl: string | null;
  /** Hex digest naming the audio content: the ETag and part of the immutable audio URL. */
  contentHash: string;
  /** Where `/p/<token>.mp3` redirects: an absolute URL (CDN, presigned S3) or an app path. */
  audioLocation: string;
  /** When a presigned `audioLocation` must be signed again (epoch ms, half its lifetime); null when it never expires. */
  audioLocationRefreshAt: number | null;
  /**
   * The `.mp3` redirect's headers, built by fast-path.ts on the link's first redirect and kept with
   * it: a reload (invalidation, re-signing) brings a new object, so they never outlive the link.
   */
  redirectHeaders?: string[];
}

export interface PlayLinkGuide {
  respelling: string;
  ipa: string;
  notLike: string | null;
  language: string;
  /** The person approved it (the computer voice saying it); when false it is a guess or an organiser's suggestion. */
  approved: boolean;
}

interface Entry {
  token: string;
  value: ResolvedPlayLink | null;
  expiresAt: number;
  /** Hit since the eviction sweep last passed it: it gets a second chance (see `evictOne`). */
  used: boolean;
}

/** What a batch lookup needs of one user: their collection, name and active link (if recorded). */
export interface UserLinkSummary {
  userId: string;
  collectionId: string;
  displayName: string;
  /** Null when the user has no recording (or no active link yet). */
  token: string | null;
}

interface UserEntry {
  value: UserLinkSummary;
  expiresAt: number;
}

export interface PlayLinkCacheOptions {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

export class PlayLinkCache {
  private positive = new Map<string, Entry>();
  private negative = new Map<string, Entry>();
  private tokensByUser = new Map<string, Set<string>>();
  private inflight = new Map<string, Promise<ResolvedPlayLink | null>>();
  /** Batch lookups by user id (`undefined` = absent; entries hold summaries of existing users only). */
  private users = new Map<string, UserEntry>();
  /** Insertion order of each map, for eviction (see src/lib/eviction-queue.ts). */
  private readonly positiveOrder: EvictionQueue<Entry>;
  private readonly negativeOrder: EvictionQueue<Entry>;
  private readonly userOrder: EvictionQueue<UserEntry>;
  private generation = 0;
  private readonly now: () => number;
  /** Lookups answered from the cache, and lookups that had to load (for the metrics). */
  readonly lookups = { hits: 0, misses: 0 };

  constructor(private readonly options: PlayLinkCacheOptions) {
    this.now = options.now ?? Date.now;
    const capacity = Math.max(1, options.maxEntries);
    this.positiveOrder = new EvictionQueue((entry) => this.positive.get(entry.token) === entry, capacity);
    this.negativeOrder = new EvictionQueue((entry) => this.negative.get(entry.token) === entry, capacity);
    this.userOrder = new EvictionQueue((entry) => this.users.get(entry.value.userId) === entry, capacity);
  }

  /** The cached value (null = known unknown), or undefined when absent, expired or due for re-signing. */
  peek(token: string): ResolvedPlayLink | null | undefined {
    const found = this.positive.get(token);
    const entry = found ?? this.negative.get(token);
    if (!entry) return undefined;
    const now = this.now();
    const refreshAt = entry.value?.audioLocationRefreshAt ?? null;
    if (entry.expiresAt <= now || (refreshAt !== null && refreshAt <= now)) {
      this.drop(token);
      return undefined;
    }
    entry.used = true;
    return entry.value;
  }

  /** Cached value or `load()`; concurrent misses of one token share a single load. */
  async get(token: string, load: () => Promise<ResolvedPlayLink | null>): Promise<ResolvedPlayLink | null> {
    const cached = this.peek(token);
    if (cached !== undefined) return cached;
    const running = this.inflight.get(token);
    if (running) return running;
    const generation = this.generation;
    const promise = load().then(
      (value) => {
        this.inflight.delete(token);
        if (generation === this.generation && this.options.ttlMs > 0) this.store(token, value);
        return value;
      },
      (err) => {
        this.inflight.delete(token);
        throw err;
      },
    );
    this.inflight.set(token, promise);
    return promise;
  }

  /** A cached user summary, or undefined when absent or expired. */
  peekUser(userId: string): UserLinkSummary | undefined {
    const entry = this.users.get(userId);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.users.delete(userId);
      return undefined;
    }
    return entry.value;
  }

  /** Marks the start of a load; pass the result to `storeUsers` so stale loads are dropped. */
  get currentGeneration(): number {
    return this.generation;
  }

  /** Stores summaries loaded since `generation`, unless an invalidation happened meanwhile. */
  storeUsers(summaries: UserLinkSummary[], generation: number): void {
    if (generation !== this.generation || this.options.ttlMs <= 0) return;
    const expiresAt = this.now() + this.options.ttlMs;
    for (const summary of summaries) {
      if (!this.users.has(summary.userId) && this.users.size >= this.options.maxEntries) {
        const oldest = this.userOrder.shift();
        if (oldest !== undefined) this.users.delete(oldest.value.userId);
      }
      const entry = { value: summary, expiresAt };
      this.users.set(summary.userId, entry);
      this.userOrder.push(entry);
    }
  }

  private store(token: string, value: ResolvedPlayLink | null): void {
    const map = value ? this.positive : this.negative;
    const order = value ? this.positiveOrder : this.negativeOrder;
    if (!map.has(token) && map.size >= this.options.maxEntries) this.evictOne(order);
    const entry: Entry = { token, value, expiresAt: this.now() + this.options.ttlMs, used: false };
    map.set(token, entry);
    order.push(entry);
    if (value) {
      const tokens = this.tokensByUser.get(value.userId) ?? new Set<string>();
      tokens.add(token);
      this.tokensByUser.set(value.userId, tokens);
    }
  }

  /**
   * Second chance: entries are visited oldest first; one hit since the sweep last passed it has its
   * flag cleared and goes to the back of the queue, and the first one not hit is dropped. Every move
   * clears a flag that only a hit sets again, so this costs at most one move per hit, amortised.
   */
  private evictOne(order: EvictionQueue<Entry>): void {
    for (let entry = order.shift(); entry !== undefined; entry = order.shift()) {
      if (!entry.used) {
        this.drop(entry.token);
        return;
      }
      entry.used = false;
      order.push(entry);
    }
  }

  private drop(token: string): void {
    const entry = this.positive.get(token);
    if (entry?.value) {
      const tokens = this.tokensByUser.get(entry.value.userId);
      tokens?.delete(token);
      if (tokens?.size === 0) this.tokensByUser.delete(entry.value.userId);
    }
    this.positive.delete(token);
    this.negative.delete(token);
  }

  /**
   * Plays just written to the database: cached entries add them to their stored count, so a
   * count never goes backwards between a flush and the entry's expiry. Loads running during the
   * flush may have read the old count, so they are not stored.
   */
  /** `plays` more plays of each of `tokens` (or `plays[i]` of `tokens[i]`) are now in the database. */
  noteFlushed(tokens: readonly string[], plays: number | readonly number[]): void {
    this.generation++;
    for (const [index, token] of tokens.entries()) {
      const value = this.positive.get(token)?.value;
      if (value) value.storedPlayCount += typeof plays === 'number' ? plays : (plays[index] ?? 0);
    }
  }

  invalidateToken(token: string): void {
    this.generation++;
    this.inflight.delete(token);
    const userId = this.positive.get(token)?.value?.userId;
    this.drop(token);
    // A retired token may sit in a user summary whose token entry already expired: drop them all.
    if (userId !== undefined) this.users.delete(userId);
    else {
      this.users = new Map();
      this.userOrder.clear();
    }
  }

  invalidateUser(userId: string): void {
    this.generation++;
    for (const token of this.tokensByUser.get(userId) ?? []) {
      this.positive.delete(token);
      this.inflight.delete(token);
    }
    this.tokensByUser.delete(userId);
    this.users.delete(userId);
    this.negative = new Map();
    this.negativeOrder.clear();
  }

  invalidateAll(): void {
    this.generation++;
    this.positive = new Map();
    this.negative = new Map();
    this.tokensByUser = new Map();
    this.inflight = new Map();
    this.users = new Map();
    this.positiveOrder.clear();
    this.negativeOrder.clear();
    this.userOrder.clear();
  }

  get size(): number {
    return this.positive.size + this.negative.size;
  }
}

/** Plays counted in memory, written to the database in batches (`flushPlayCounts`). */
export class PlayCounter {
  private pending = new Map<string, number>();

  add(token: string, plays = 1): void {
    this.pending.set(token, (this.pending.get(token) ?? 0) + plays);
  }

  pendingFor(token: string): number {
    return this.pending.get(token) ?? 0;
  }

  /** A rotated link keeps its plays: pending counts follow the new token. */
  move(from: string, to: string): void {
    const plays = this.pending.get(from);
    if (plays === undefined) return;
    this.pending.delete(from);
    this.add(to, plays);
  }

  /** Hands over every pending count and starts afresh. */
  take(): Map<string, number> {
    const taken = this.pending;
    this.pending = new Map();
    return taken;
  }

  /** Puts counts back after a failed write, so no play is lost. */
  restore(counts: Map<string, number>): void {
    for (const [token, plays] of counts) this.add(token, plays);
  }
}

/** One UPDATE's worth of a flush: every token in it gets the same number of extra plays. */
export interface PlayCountBatch {
  plays: number;
  tokens: string[];
}

/**
 * Groups pending counts by their number of plays (mostly 1, 2, 3…) into batches of at most
 * `maxTokens`, so thousands of played links take a handful of statements. Lazy and linear: each
 * batch is handed out as soon as it is full, so a caller that yields between batches never does
 * more than a batch's worth of grouping at once (the rest, partly filled, come at the end).
 */
export function* batchPlayCounts(counts: Map<string, number>, maxTokens: number): Generator<PlayCountBatch> {
  const open = new Map<number, string[]>();
  for (const [token, plays] of counts) {
    let tokens = open.get(plays);
    if (!tokens) {
      tokens = [];
      open.set(plays, tokens);
    }
    tokens.push(token);
    if (tokens.length === maxTokens) {
      open.delete(plays);
      yield { plays, tokens };
    }
  }
  for (const [plays, tokens] of open) yield { plays, tokens };
}

/**
 * Coalesces loads of different keys requested in the same turn of the event loop into one
 * `loadMany` call (run from `setImmediate`, in chunks of `maxBatch`). Under load, a burst of cache
 * misses costs one query instead of one per token.
 */
export class KeyBatcher<V> {
  private waiting = new Map<string, { resolve: (value: V | null) => void; reject: (err: unknown) => void }[]>();
  private scheduled = false;

  constructor(
    private readonly loadMany: (keys: string[]) => Promise<Map<string, V>>,
    private readonly maxBatch = 200,
  ) {}

  load(key: string): Promise<V | null> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.run());
      }
    });
  }

  private async run(): Promise<void> {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = new Map();
    const keys = [...batch.keys()];
    for (let i = 0; i < keys.length; i += this.maxBatch) {
      const chunk = keys.slice(i, i + this.maxBatch);
      try {
        const found = await this.loadMany(chunk);
        for (const key of chunk) for (const waiter of batch.get(key) ?? []) waiter.resolve(found.get(key) ?? null);
      } catch (err) {
        for (const key of chunk) for (const waiter of batch.get(key) ?? []) waiter.reject(err);
      }
    }
  }
}

export interface PlayLinkRuntime {
  cache: PlayLinkCache;
  counter: PlayCounter;
}

export function createPlayLinkRuntime(options: PlayLinkCacheOptions): PlayLinkRuntime {
  return { cache: new PlayLinkCache(options), counter: new PlayCounter() };
}
