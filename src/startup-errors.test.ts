import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkDataDir } from './startup-errors.js';

describe('checkDataDir', () => {
  it('knows a pseudo-filesystem by its type, wherever it is mounted', () => {
    // /dev/pts is devpts on Linux; the path says nothing, the file system type does.
    if (!fs.existsSync('/dev/pts')) return;
    expect(() => checkDataDir('/dev/pts/voicename')).toThrow(/DATA_DIR \/dev\/pts\/voicename is on devpts/);
  });
  it('refuses /proc and /sys by their paths too', () => {
    expect(() => checkDataDir('/proc/1/voicename')).toThrow(/is on procfs/);
    expect(() => checkDataDir('/sys')).toThrow(/is on sysfs/);
  });
});
