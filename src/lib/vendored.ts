/**
 * Third-party files the server reads at run time but whose packages it never imports: Scalar's
 * browser bundle and the Noto fonts of the preview cards. Their npm packages are many times larger
 * than the few files the server reads (sizes in docs/performance.md), so they are
 * development dependencies: `npm run build` (scripts/build.mjs) copies exactly these files, with
 * their licences, into `dist/vendor/<package>/`, and a production install (`npm ci --omit=dev`)
 * does not carry the packages. The built server reads `dist/vendor`; code running from `src/`
 * (tests, `npm run dev`) reads the installed development dependency instead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface VendoredPackage {
  name: string;
  /** Paths inside the package, kept as they are under `dist/vendor/<name>/`. */
  files: readonly string[];
  /**
   * Licence files copied beside them: from the package, or from `scripts/licences/<name>/` when
   * the package publishes none (Scalar's MIT licence is only in its repository).
   */
  licences: readonly string[];
}

const notoFonts = (pkg: string, file: string): VendoredPackage => ({
  name: `@expo-google-fonts/${pkg}`,
  files: [`400Regular/${file}_400Regular.ttf`, `700Bold/${file}_700Bold.ttf`],
  // LICENSE_FONT is the fonts' SIL Open Font License; LICENSE is the package's own (MIT).
  licences: ['LICENSE_FONT', 'LICENSE'],
});

export const VENDORED: readonly VendoredPackage[] = [
  { name: '@scalar/api-reference', files: ['dist/browser/standalone.js'], licences: ['LICENSE'] },
  notoFonts('noto-sans', 'NotoSans'),
  notoFonts('noto-sans-arabic', 'NotoSansArabic'),
  notoFonts('noto-sans-devanagari', 'NotoSansDevanagari'),
  notoFonts('noto-sans-sc', 'NotoSansSC'),
];

// Both src/lib and dist/lib sit two levels below the project root.
const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, '..', '..');
/** `dist/vendor` for the built server; `src/vendor`, which never exists, when running from src/. */
const shippedDir = path.resolve(here, '..', 'vendor');

/**
 * Absolute path of a vendored file: the copy under `dist/vendor` when running the built server,
 * else the file in the installed package (a development checkout). Only files listed in VENDORED
 * may be asked for, so a new one cannot work in development and be missing from a production build.
 */
export function vendoredFile(pkg: string, file: string, shipped: string = shippedDir): string {
  if (!VENDORED.some((entry) => entry.name === pkg && entry.files.includes(file))) {
    throw new Error(`${pkg}/${file} is not listed in VENDORED (src/lib/vendored.ts), so npm run build would not ship it`);
  }
  const copy = path.join(shipped, pkg, file);
  if (fs.existsSync(copy)) return copy;
  const installed = path.join(projectRoot, 'node_modules', pkg, file);
  if (fs.existsSync(installed)) return installed;
  throw new Error(`${pkg}/${file} is missing: run npm run build (it copies it to dist/vendor) or npm ci`);
}
