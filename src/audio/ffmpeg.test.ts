import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKGROUND_NICENESS, locateFfmpeg, runFfmpeg } from './ffmpeg.js';

// A stand-in for the ffmpeg binary that prints the niceness it runs at, a moment after its start
// (the priority is set just after spawning). Node itself, by absolute path: CI hides system tools.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ffmpeg-priority-'));
const fakeFfmpeg = path.join(dir, 'ffmpeg');
fs.writeFileSync(fakeFfmpeg, `#!${process.execPath}\nsetTimeout(() => console.log(require('node:os').getPriority()), 200);\n`, {
  mode: 0o700,
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const nicenessOf = async (background: boolean) => {
  const run = await runFfmpeg(fakeFfmpeg, [], { timeoutMs: 5_000, maxStdoutBytes: 100, background });
  return Number(run.stdout.toString().trim());
};

describe('ffmpeg run priority', () => {
  it('runs background work at a lower CPU priority than the server, and normal work at its priority', async () => {
    const own = os.getPriority();
    expect(await nicenessOf(false)).toBe(own);
    expect(await nicenessOf(true)).toBe(Math.min(19, own + BACKGROUND_NICENESS));
  });
});

describe('locateFfmpeg', () => {
  const binary = (name: string) => {
    fs.mkdirSync(path.join(dir, name));
    const file = path.join(dir, name, 'ffmpeg');
    fs.writeFileSync(file, '#!/bin/sh\n', { mode: 0o700 });
    return file;
  };
  const configured = binary('configured');
  const onPath = binary('on-path');
  const packaged = binary('package');

  it('takes FFMPEG_PATH, then ffmpeg on PATH, then the optional npm package, in that order', () => {
    expect(locateFfmpeg(configured, path.dirname(onPath), () => packaged)).toBe(configured);
    expect(locateFfmpeg(null, path.dirname(onPath), () => packaged)).toBe(onPath);
    expect(locateFfmpeg(null, '', () => packaged)).toBe(packaged);
  });

  it('says how to provide one when there is none (the optional package left out of the install)', () => {
    expect(() => locateFfmpeg(null, '', () => null)).toThrow(/apt-get install ffmpeg.*FFMPEG_PATH.*@ffmpeg-installer\/ffmpeg/);
  });
});
