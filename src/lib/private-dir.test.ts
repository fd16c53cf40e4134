import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ensurePrivateDir } from './private-dir.js';

it('creates the data directory private to its user, and makes an existing open one private', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-private-'));
  try {
    const fresh = path.join(root, 'a', 'data');
    expect(ensurePrivateDir(fresh)).toBe(true);
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700);
    const open = path.join(root, 'open');
    fs.mkdirSync(open, { mode: 0o755 });
    fs.chmodSync(open, 0o755);
    expect(ensurePrivateDir(open)).toBe(true);
    expect(fs.statSync(open).mode & 0o777).toBe(0o700);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
