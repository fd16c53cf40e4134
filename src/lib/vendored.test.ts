import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VENDORED, vendoredFile } from './vendored.js';

const shipped = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-vendor-'));
afterAll(() => fs.rmSync(shipped, { recursive: true, force: true }));

describe('vendoredFile', () => {
  it('reads the copy the build shipped when there is one (the built server)', () => {
    const copy = path.join(shipped, '@scalar/api-reference/dist/browser/standalone.js');
    fs.mkdirSync(path.dirname(copy), { recursive: true });
    fs.writeFileSync(copy, '');
    expect(vendoredFile('@scalar/api-reference', 'dist/browser/standalone.js', shipped)).toBe(copy);
  });

  it('reads the installed development dependency otherwise (running from src/)', () => {
    for (const { name, files } of VENDORED) {
      for (const file of files) {
        const found = vendoredFile(name, file, path.join(shipped, 'none'));
        expect(found.endsWith(path.join('node_modules', name, file))).toBe(true);
        expect(fs.statSync(found).size).toBeGreaterThan(0);
      }
    }
  });

  it('refuses a file the build would not ship', () => {
    expect(() => vendoredFile('@expo-google-fonts/noto-sans', '400Regular_Italic/NotoSans_400Regular_Italic.ttf')).toThrow(
      /not listed in VENDORED/,
    );
  });
});
