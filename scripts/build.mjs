/**
 * `npm run build`: compiles src/ to dist/ (tsc), copies the worker modules written in plain
 * JavaScript, compiles the browser scripts of src/web/client with esbuild once, here, so the
 * built server only reads files at boot (no TypeScript loader, no esbuild service), and copies
 * the vendored files (src/lib/vendored.ts: Scalar's bundle, the card fonts) with their licences
 * from the development dependencies into dist/vendor, so a production install needs none of
 * them. Ends by touching dist/.built, which scripts/start.mjs compares with src/.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transformSync } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

for (const dir of ['speech', 'cards', 'db']) {
  for (const file of fs.readdirSync(path.join(root, 'src', dir)).filter((name) => name.endsWith('.mjs'))) {
    fs.copyFileSync(path.join(root, 'src', dir, file), path.join(root, 'dist', dir, file));
  }
}

// The same transform src/web/assets.ts applies at boot when it runs from src/.
const clientSrc = path.join(root, 'src', 'web', 'client');
const clientOut = path.join(root, 'dist', 'web', 'client');
fs.rmSync(clientOut, { recursive: true, force: true });
fs.mkdirSync(clientOut, { recursive: true });
for (const entry of fs.readdirSync(clientSrc)) {
  const source = path.join(clientSrc, entry);
  if (entry.endsWith('.test.ts') || entry.endsWith('.d.ts')) continue;
  if (entry.endsWith('.ts')) {
    const { code } = transformSync(fs.readFileSync(source, 'utf8'), {
      loader: 'ts',
      format: 'iife',
      target: 'es2020',
      minify: true,
    });
    fs.writeFileSync(path.join(clientOut, `${path.basename(entry, '.ts')}.js`), code);
  } else {
    fs.copyFileSync(source, path.join(clientOut, entry));
  }
}
// The list is the one the server reads through (dist/lib/vendored.js, just compiled).
const { VENDORED } = await import(pathToFileURL(path.join(root, 'dist', 'lib', 'vendored.js')).href);
const vendorOut = path.join(root, 'dist', 'vendor');
fs.rmSync(vendorOut, { recursive: true, force: true });
for (const { name, files, licences } of VENDORED) {
  const installed = path.join(root, 'node_modules', name);
  const copy = (from, file) => {
    fs.mkdirSync(path.dirname(path.join(vendorOut, name, file)), { recursive: true });
    fs.copyFileSync(from, path.join(vendorOut, name, file));
  };
  for (const file of files) copy(path.join(installed, file), file);
  for (const licence of licences) {
    const published = path.join(installed, licence);
    const kept = path.join(root, 'scripts', 'licences', name, licence);
    if (fs.existsSync(published)) copy(published, licence);
    else if (fs.existsSync(kept)) copy(kept, licence);
    else throw new Error(`no ${licence} for ${name}: neither the package nor scripts/licences has it`);
  }
}
fs.writeFileSync(path.join(root, 'dist', '.built'), `${new Date().toISOString()}\n`);
