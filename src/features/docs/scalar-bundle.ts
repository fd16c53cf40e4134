/**
 * Scalar's self-contained browser bundle (`@scalar/api-reference`, megabytes of JavaScript), served
 * from our own origin under a content-hashed, immutable URL. The server never imports the
 * package: it only reads this one file, which `npm run build` copies to dist/vendor with its
 * licence (src/lib/vendored.ts). Compressed once per process, off the event loop, the
 * first time the reference is asked for (brotli quality 9: quality 11 takes many times longer for
 * little gain; docs/performance.md), so processes that never serve the docs pay nothing.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { vendoredFile } from '../../lib/vendored.js';

export interface ScalarBundle {
  /** `/docs/assets/scalar.<hash>.js` */
  url: string;
  etag: string;
  identity: Buffer;
  /** Started when the bundle is first loaded; awaited by the first compressed response. */
  br: Promise<Buffer>;
  gzip: Promise<Buffer>;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** The bundle's path: dist/vendor in the built server (the package is a development dependency). */
const bundlePath = (): string => vendoredFile('@scalar/api-reference', 'dist/browser/standalone.js');

export function scalarBundleLoader(file: () => string = bundlePath): () => ScalarBundle {
  let bundle: ScalarBundle | null = null;
  return () => {
    if (bundle) return bundle;
    const identity = fs.readFileSync(file());
    const hash = createHash('sha256').update(identity).digest('hex').slice(0, 16);
    const br = brotli(identity, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    });
    const gz = gzip(identity, { level: 9 });
    // Awaited later by the response; a failure there is answered with the uncompressed file.
    br.catch(() => {});
    gz.catch(() => {});
    bundle = { url: `/docs/assets/scalar.${hash}.js`, etag: `"${hash}"`, identity, br, gzip: gz };
    return bundle;
  };
}
