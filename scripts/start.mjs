/**
 * `npm start` (and `npm run worker`): the built server, dist/main.js (dist/worker.js), run in
 * this very process: one Node process, no TypeScript loader or esbuild service beside it.
 * dist/ is built first when it is missing or older than anything under src/ (about 40 s), so
 * a fresh clone's `npm ci && npm start` works and an edited tree never runs stale code; a lock
 * directory makes processes started together build once. `npm run dev` runs src/ directly.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// `worker` runs dist/worker.js; `build` only brings dist/ up to date (tests, deploy scripts).
const mode = process.argv[2];
const entry = mode === 'worker' ? 'worker' : 'main';
const stamp = path.join(root, 'dist', '.built');
const lock = path.join(root, '.build-lock');

function newest(dir) {
  let latest = 0;
  for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, item.name);
    latest = Math.max(latest, item.isDirectory() ? newest(file) : fs.statSync(file).mtimeMs);
  }
  return latest;
}
const stale = () => !fs.existsSync(stamp) || fs.statSync(stamp).mtimeMs < newest(path.join(root, 'src'));

async function buildOnce() {
  while (stale()) {
    try {
      fs.mkdirSync(lock);
    } catch {
      // Another process is building: wait for it (or for its lock to be abandoned, after 5 min).
      if (Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 300_000)
        fs.rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    try {
      if (!stale()) return;
      process.stderr.write('Building dist/ from src/ …\n');
      const built = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
      if (built.status !== 0) process.exit(built.status ?? 1);
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

await buildOnce();
if (mode !== 'build') await import(pathToFileURL(path.join(root, 'dist', `${entry}.js`)).href);
