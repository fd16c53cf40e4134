/**
 * What an operator reads when a process cannot start: one line naming the setting at fault and
 * what to do about it, instead of a stack trace that names none. The server and the worker
 * print `explainStartupError`'s line and exit non-zero; anything it does not recognise is
 * printed whole, since that is a bug to report rather than a setting to change.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Config, ConfigError } from './config.js';

/** A setting the process cannot run with, found at start (its message is the whole explanation). */
export class StartupError extends Error {}

/**
 * statfs `f_type` magic numbers of Linux's kernel pseudo-filesystems (linux/magic.h): files
 * there are views of the kernel, not storage, and writing a database to them never completes.
 */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0xcafe4a11, 'bpf'],
  [0x6e736673, 'nsfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0xf97cff8c, 'selinuxfs'],
  [0x6165676c, 'pstore'],
  [0xde5e81e4, 'efivarfs'],
  [0x19800202, 'mqueue'],
  [0x50495045, 'pipefs'],
  [0x534f434b, 'sockfs'],
]);

const WHY: Record<string, string> = {
  EACCES: 'this user may not write there',
  EPERM: 'this user may not write there',
  ENOTDIR: 'part of the path is a file, not a directory',
  EEXIST: 'it is a file, not a directory',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  ELOOP: 'the path loops through symbolic links',
};

/** The file system type of `dir`'s nearest existing ancestor, when it is a kernel pseudo-filesystem. */
function pseudoFilesystemOf(dir: string): string | null {
  if (/^\/(proc|sys)(\/|$)/.test(dir)) return dir.startsWith('/proc') ? 'procfs' : 'sysfs';
  let existing = dir;
  while (!fs.existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  try {
    return PSEUDO_FILESYSTEMS.get(fs.statfsSync(existing).type) ?? null;
  } catch {
    return null;
  }
}

/**
 * Refuses a DATA_DIR the service cannot keep its database, voices and keys in (a kernel
 * pseudo-filesystem, a file, a directory this user may not write), before anything opens it.
 */
export function checkDataDir(dir: string): void {
  const pseudo = pseudoFilesystemOf(dir);
  if (pseudo) {
    throw new StartupError(
      `DATA_DIR ${dir} is on ${pseudo}, a view of the kernel rather than storage: set DATA_DIR to a directory on a disk (e.g. /var/lib/voicename)`,
    );
  }
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    throw new StartupError(dataDirLine(dir, err));
  }
}

function dataDirLine(dir: string, err: unknown): string {
  const code = codeOf(err) ?? 'error';
  const why = WHY[code] ?? (err as Error).message;
  return `DATA_DIR ${dir} cannot be used (${code}: ${why}): set DATA_DIR to a directory this user can write, or fix its owner and mode`;
}

/** The system error code of `err`, its first cause, or its first aggregated error (a connection to every address of a host). */
function codeOf(err: unknown): string | undefined {
  for (let current = err; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return code;
    const first = (current as Partial<AggregateError>).errors?.[0] as NodeJS.ErrnoException | undefined;
    if (typeof first?.code === 'string') return first.code;
  }
  return undefined;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);
/** PostgreSQL's own refusals (SQLSTATE): bad password or role, no such database. */
const POSTGRES_REFUSALS: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the role may not connect',
  '3D000': 'the database does not exist',
};

/** The PostgreSQL server of a DATABASE_URL, without its credentials. */
function postgresServer(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'the configured server';
  }
}

/** One line for an error that stops start-up, or null when it is not one an operator can fix by a setting. */
export function explainStartupError(err: unknown, config: Config | null): string | null {
  if (err instanceof ConfigError) return `Configuration error: ${err.message}`;
  if (err instanceof StartupError) return `Cannot start: ${err.message}`;
  if (!config) return null;
  const code = codeOf(err);
  const failed = err as { syscall?: string; port?: number; path?: string };
  if (failed.syscall === 'listen') {
    const setting = failed.port === config.metricsPort && failed.port !== config.port ? 'METRICS_PORT' : 'PORT';
    const port = failed.port ?? config.port;
    if (code === 'EADDRINUSE') return `Cannot start: ${setting} ${port} is in use: stop the other server or set ${setting}`;
    if (code === 'EACCES') {
      return `Cannot start: ${setting} ${port} needs privileges this user lacks: use a port above 1023 (behind a proxy) or set ${setting}`;
    }
    if (code === 'EADDRNOTAVAIL') return `Cannot start: HOST ${config.host} is not an address of this machine: set HOST`;
  }
  if (config.database.dialect === 'postgres' && code !== undefined) {
    const server = postgresServer(config.database.url);
    if (CONNECTION_CODES.has(code)) {
      return `Cannot start: DATABASE_URL: PostgreSQL at ${server} cannot be reached (${code}): start it, or point DATABASE_URL at a running server`;
    }
    const refusal = POSTGRES_REFUSALS[code];
    if (refusal)
      return `Cannot start: DATABASE_URL: PostgreSQL at ${server} refused the connection (${refusal}): fix DATABASE_URL`;
  }
  if (config.database.dialect === 'sqlite' && (code?.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_READONLY')) {
    return `Cannot start: DATABASE_URL: the SQLite database ${config.database.file} cannot be opened for writing (${code}): set DATA_DIR (or DATABASE_URL) to a place this user can write`;
  }
  if (code !== undefined && code in WHY && typeof failed.path === 'string') {
    const setting = failed.path.startsWith(config.dataDir) ? 'DATA_DIR' : 'DATABASE_URL';
    return `Cannot start: ${setting}: ${failed.path} cannot be written (${code}: ${WHY[code]}): set ${setting} to a place this user can write`;
  }
  return null;
}
