// The resolve hook of tests/helpers/module-log.mjs: records every ES module's resolved URL.
import fs from 'node:fs';
import process from 'node:process';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (resolved.url.startsWith('file:')) fs.appendFileSync(process.env.MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
