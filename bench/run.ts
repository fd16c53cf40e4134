/** `npm run bench`: runs every benchmark script in bench/ one after another (each prints its own table). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const scripts = fs
  .readdirSync(dir)
  .filter(
    (f) =>
      f.endsWith('.ts') &&
      ![
        'run.ts',
        'lib.ts',
        'seed.ts',
        'bare-server.ts',
        'bare-json-server.ts',
        'bare-redirect-server.ts',
        'bare-import-server.ts',
        'blob-stream-server.ts',
        'smtp-receiver.ts',
        'soak.ts',
        'webhook-receivers.ts',
        'webhook-sender.ts',
        'webhook-data.ts',
      ].includes(f),
  )
  .filter((f) => only.length === 0 || only.some((name) => f.startsWith(name)))
  .sort();
let failed = false;
for (const script of scripts) {
  console.log(`\n### ${script}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, script)], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
