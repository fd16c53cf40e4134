/**
 * Private temporary folders (raw voice uploads, logo uploads, export CSVs) are made inside one
 * folder per process in the OS temp directory, `voicename-run-<pid>-<start>-<random>`: the
 * process's id and start time say who owns it, the random part (mkdtemp) keeps its name
 * unguessable in a shared /tmp. A process killed with SIGKILL cannot clean up after itself, so
 * whoever sweeps next (a server at start and every hour) removes every such folder whose owner
 * is no longer running, however young, and never one whose owner is.
 */
import fs from 'node:fs/promises';
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const OWNER_PREFIX = 'voicename-run-';
const OWNED = /^voicename-run-(\d+)-(\d+)-/;
/** Folders made by versions before owners: removed once nothing has written to them for `olderThanMs`. */
const UNOWNED_PREFIXES = ['voicename-audio-', 'voicename-logo-', 'voicename-export-'];

/**
 * When process `pid` started (clock ticks since boot, /proc/<pid>/stat field 22), so a pid the
 * system has handed to another process since is not mistaken for the owner; 0 where unknown.
 */
export function processStartTime(pid: number): number {
  try {
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]) || 0;
  } catch {
    return 0;
  }
}

/** The name prefix of the temp folder of process `pid` (tests make folders for other processes with it). */
export function ownerFolderPrefix(pid: number, started = processStartTime(pid)): string {
  return `${OWNER_PREFIX}${pid}-${started}-`;
}

function isRunning(pid: number, started: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: running, as another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = processStartTime(pid);
  return started === 0 || now === 0 || now === started;
}

let ownFolder: Promise<string> | null = null;

/**
 * A new private folder (mode 0700) for one piece of work, inside this process's own folder;
 * the caller removes it when done. `purpose` (audio, logo, export) names it for people reading /tmp.
 */
export async function makeWorkFolder(purpose: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    ownFolder ??= fs.mkdtemp(path.join(os.tmpdir(), ownerFolderPrefix(process.pid))).then((made) => {
      // A process that ends normally takes its folder with it; only a killed one leaves it to the sweep.
      process.once('exit', () => rmSync(made, { recursive: true, force: true }));
      return made;
    });
    const owned = ownFolder;
    try {
      return await fs.mkdtemp(path.join(await owned, `${purpose}-`));
    } catch (err) {
      // The folder went (a /tmp cleaner, an operator): make it again, once.
      if (ownFolder === owned) ownFolder = null;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt > 0) throw err;
    }
  }
}

/** The newest modification time of a folder and what is directly inside it. */
async function lastWritten(dir: string, own: number): Promise<number> {
  let latest = own;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const stat = await fs.lstat(path.join(dir, name)).catch(() => null);
    if (stat) latest = Math.max(latest, stat.mtimeMs);
  }
  return latest;
}

/**
 * Removes the temp folders of processes that are no longer running (a crash, SIGKILL, a lost
 * machine's restart), and folders of older versions untouched for `unownedOlderThanMs`.
 * Only this user's folders are touched; returns how many went.
 */
export async function removeLeftoverTempFolders(
  options: { tempDir?: string; unownedOlderThanMs?: number } = {},
): Promise<number> {
  const tempDir = options.tempDir ?? os.tmpdir();
  const cutoff = Date.now() - (options.unownedOlderThanMs ?? 60 * 60_000);
  let removed = 0;
  for (const name of await fs.readdir(tempDir).catch(() => [] as string[])) {
    const owner = OWNED.exec(name);
    if (!owner && !UNOWNED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const full = path.join(tempDir, name);
    const stat = await fs.lstat(full).catch(() => null);
    if (!stat?.isDirectory() || (process.getuid && stat.uid !== process.getuid())) continue;
    if (owner ? isRunning(Number(owner[1]), Number(owner[2])) : (await lastWritten(full, stat.mtimeMs)) >= cutoff) continue;
    await fs.rm(full, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
