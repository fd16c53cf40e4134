import fs from 'node:fs';
import path from 'node:path';

/** Whether `file` is a regular file this process may execute. */
export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable called `name` in the directories of `envPath` (a PATH value), or null. */
export function findOnPath(name: string, envPath: string = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}
