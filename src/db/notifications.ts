/**
 * Messages between the processes that share a database: "jobs were committed" (wake the
 * workers), "these play links changed" (drop them from every cache) and "show this person on
 * the collection's readers" (the stage scanner, src/features/stage). On PostgreSQL they
 * travel by LISTEN/NOTIFY and arrive in other processes within milliseconds; on SQLite (one
 * process by design) they stay in this process. Either way, delivery is best effort: workers
 * still poll and caches still expire, so a lost message costs latency, never correctness.
 *
 * A process ignores the echo of its own messages (it has already acted on them). After the
 * listening connection drops and comes back, messages may have been missed: `onGap` handlers
 * run then (caches are dropped whole, workers poll).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseConfig } from '../config.js';
import type { Db } from './index.js';
import { loadPg } from './pg.js';

export type Topic = 'jobs' | 'play_links' | 'stage';
const TOPICS: readonly Topic[] = ['jobs', 'play_links', 'stage'];

export interface Notifications {
  /** Tells this process's subscribers now, and other processes' once the message arrives. */
  publish(topic: Topic, payload: string): void;
  subscribe(topic: Topic, handler: (payload: string) => void): () => void;
  onGap(handler: () => void): () => void;
  /**
   * Settles once messages from other processes can arrive (at once without PostgreSQL), or once
   * the first attempt to listen has failed. A subscriber that tells its client "connected" waits
   * for it: right after a process starts, a message published elsewhere would otherwise be missed.
   */
  listening(): Promise<void>;
  close(): Promise<void>;
}

/** PostgreSQL's limit on a NOTIFY payload is 8,000 bytes; ours are ids, far below it. */
const MAX_PAYLOAD_BYTES = 7_000;
const RECONNECT_MS = [250, 1_000, 5_000, 15_000];

export function createNotifications(config: DatabaseConfig, db: Db, logger: Logger): Notifications {
  const handlers = new Map<Topic, Set<(payload: string) => void>>();
  const gapHandlers = new Set<() => void>();
  const deliver = (topic: Topic, payload: string) => {
    for (const handler of handlers.get(topic) ?? []) {
      try {
        handler(payload);
      } catch (err) {
        logger.error({ err, topic }, 'notification handler failed');
      }
    }
  };
  const local: Notifications = {
    publish: (topic, payload) => queueMicrotask(() => deliver(topic, payload)),
    subscribe(topic, handler) {
      const set = handlers.get(topic) ?? new Set();
      handlers.set(topic, set);
      set.add(handler);
      return () => set.delete(handler);
    },
    onGap(handler) {
      gapHandlers.add(handler);
      return () => gapHandlers.delete(handler);
    },
    listening: async () => {},
    close: async () => {},
  };
  if (config.dialect !== 'postgres') return local;

  // Channels are database-wide: name them after the schema, so processes confined to another
  // schema of the same database (tests run one per file) never hear these.
  const channel = (topic: Topic) => `voicename_${db.schema ?? 'public'}_${topic}`;
  const origin = randomUUID();
  let client: pg.Client | undefined;
  let closed = false;
  let attempt = 0;
  let everConnected = false;

  const listen = async () => {
    if (closed) return;
    const { Client } = loadPg();
    const connection = new Client({ connectionString: config.url });
    connection.on('error', (err) => logger.warn({ err }, 'notifications: the listening connection failed'));
    connection.on('end', () => {
      if (client !== connection) return; // a failed connect: its catch below schedules the retry
      client = undefined;
      if (!closed) scheduleReconnect();
    });
    connection.on('notification', (message) => {
      const topic = TOPICS.find((t) => channel(t) === message.channel);
      if (!topic || !message.payload) return;
      const separator = message.payload.indexOf(' ');
      if (message.payload.slice(0, separator) === origin) return;
      deliver(topic, message.payload.slice(separator + 1));
    });
    try {
      await connection.connect();
      for (const topic of TOPICS) await connection.query(`listen "${channel(topic)}"`);
    } catch (err) {
      logger.warn({ err }, 'notifications: could not listen; polling and cache expiry cover the gap');
      await connection.end().catch(() => {});
      if (!closed) scheduleReconnect();
      return;
    }
    if (closed) {
      await connection.end().catch(() => {});
      return;
    }
    client = connection;
    attempt = 0;
    if (everConnected) for (const handler of gapHandlers) handler();
    everConnected = true;
  };
  const scheduleReconnect = () => {
    const delay = RECONNECT_MS[Math.min(attempt++, RECONNECT_MS.length - 1)] as number;
    setTimeout(() => void listen(), delay).unref();
  };
  const started = listen();

  return {
    ...local,
    listening: () => started,
    publish(topic, payload) {
      local.publish(topic, payload);
      const message = `${origin} ${payload}`;
      if (Buffer.byteLength(message) > MAX_PAYLOAD_BYTES) throw new Error(`notification payload too large for ${topic}`);
      sql`select pg_notify(${channel(topic)}, ${message})`
        .execute(db.kysely)
        .catch((err: unknown) =>
          logger.warn({ err, topic }, 'notifications: could not publish; other processes catch up by polling'),
        );
    },
    async close() {
      closed = true;
      await started;
      await client?.end().catch(() => {});
    },
  };
}
