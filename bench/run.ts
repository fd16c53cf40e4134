/**
 * `npm run bench`: runs every benchmark script in this folder (`bench/<feature>.ts`), one after
 * another, each in its own process. Pass names to run some: `npm run bench -- play-links`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const scripts = fs
  .readdirSync(dir)
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && file !== 'run.ts' && !file.startsWith('_'))
  .filter((file) => wanted.length === 0 || wanted.includes(path.basename(file, '.ts')))
  .sort();
let failed = false;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const result = spawnSync(process.execPath, [...process.execArgv, path.join(dir, script)], { stdio: 'inherit' });
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
