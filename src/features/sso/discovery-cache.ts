/**
 * The identity provider's OpenID metadata, kept in this process for a few minutes: a sign-in
 * reads it at its start and again at the callback, and a class signing in at once would
 * otherwise fetch the same document hundreds of times. An entry belongs to one connection as
 * configured (issuer, client id and a hash of the secret, since the configuration carries the
 * client's authentication): editing any of them looks up another entry, and saving or removing
 * the connection drops its entries here at once. Other processes keep theirs until they expire.
 */
import type * as OpenIdClient from 'openid-client';
import { sha256Hex } from '../../lib/secrets.js';

/** How long a discovered configuration is reused: providers change their metadata rarely. */
export const DISCOVERY_TTL_MS = 5 * 60_000;
/** At most this many connections' configurations are held (the oldest goes first). */
const MAX_ENTRIES = 200;

interface Entry {
  issuer: string;
  config: OpenIdClient.Configuration;
  expiresAt: number;
}

const entries = new Map<string, Entry>();

export interface ConnectionKey {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

const keyOf = (connection: ConnectionKey) =>
  JSON.stringify([connection.issuer, connection.clientId, sha256Hex(connection.clientSecret)]);

export function cachedDiscovery(connection: ConnectionKey, now: number): OpenIdClient.Configuration | null {
  const key = keyOf(connection);
  const entry = entries.get(key);
  if (!entry) return null;
  if (entry.expiresAt <= now) {
    entries.delete(key);
    return null;
  }
  return entry.config;
}

export function rememberDiscovery(connection: ConnectionKey, config: OpenIdClient.Configuration, now: number): void {
  const key = keyOf(connection);
  entries.delete(key);
  while (entries.size >= MAX_ENTRIES) {
    const oldest = entries.keys().next().value;
    if (oldest === undefined) break;
    entries.delete(oldest);
  }
  entries.set(key, { issuer: connection.issuer, config, expiresAt: now + DISCOVERY_TTL_MS });
}

/** Drops every configuration discovered for `issuer` (the connection was edited or removed). */
export function forgetDiscovery(issuer: string): void {
  for (const [key, entry] of entries) if (entry.issuer === issuer) entries.delete(key);
}
