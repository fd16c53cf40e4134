/**
 * `npm run lint:openapi`: both API documents through Spectral (`spectral:oas`) and Redocly
 * (`recommended-strict`, which makes every warning an error): 0 errors and 0 warnings, or it fails.
 * Neither has exceptions: no rule turned off, no ignore file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadApiDocuments } from './lib/api-documents.js';

// A deployment's own host (`.test` is reserved for this): the `servers` of a real deployment are
// never localhost, which the linters rightly flag.
const documents = await loadApiDocuments('https://voicename.test');
const dir = path.resolve('.tmp', 'openapi');
fs.mkdirSync(dir, { recursive: true });
const files = Object.entries(documents).map(([name, document]) => {
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  return path.relative(process.cwd(), file);
});

const run = (command: string, args: string[]) => {
  try {
    execFileSync(command, args, { stdio: 'inherit' });
  } catch {
    process.exit(1);
  }
};
run('npx', ['--no-install', 'spectral', 'lint', '--fail-severity=warn', '--ruleset', '.spectral.yaml', ...files]);
run('npx', ['--no-install', 'redocly', 'lint', '--config', 'redocly.yaml', ...files]);
