// Preloaded with `node --import` by tests/idle-modules.test.ts: appends the file of every module
// the process loads, ES modules (through a resolve hook) and CommonJS (through the loader's
// filename resolution, which `require` and `createRequire` both use), to MODULE_LOG.
import fs from 'node:fs';
import process from 'node:process';
import Module, { register } from 'node:module';
import { pathToFileURL, URL } from 'node:url';

register(new URL('./module-log-hooks.mjs', import.meta.url));
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const file = resolveFilename.apply(this, args);
  if (file.startsWith('/')) fs.appendFileSync(process.env.MODULE_LOG, `${pathToFileURL(file).href}\n`);
  return file;
};
