/** Decodes audio with the real ffmpeg to check what a listener would hear. */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface AudioFacts {
  codec: string;
  durationSeconds: number;
  maxVolumeDb: number;
  meanVolumeDb: number;
}

export function inspectAudio(bytes: Buffer): AudioFacts {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-audio-'));
  const file = path.join(dir, 'audio.mp3');
  fs.writeFileSync(file, bytes);
  try {
    const probe = JSON.parse(
      execFileSync('ffprobe', [
        '-v',
        'error',
        '-show_entries',
        'stream=codec_name:format=duration',
        '-of',
        'json',
        file,
      ]).toString(),
    );
    // Decode every frame (-xerror: a corrupt stream fails) and measure the loudness.
    const decoded = spawnSync(
      'ffmpeg',
      ['-hide_banner', '-nostats', '-xerror', '-i', file, '-af', 'volumedetect', '-f', 'null', '-'],
      {
        encoding: 'utf8',
      },
    );
    if (decoded.status !== 0) throw new Error(`ffmpeg could not decode the audio: ${decoded.stderr.slice(-500)}`);
    const log = decoded.stderr;
    const max = /max_volume: (-?[\d.]+) dB/.exec(log);
    const mean = /mean_volume: (-?[\d.]+) dB/.exec(log);
    return {
      codec: probe.streams?.[0]?.codec_name ?? '',
      durationSeconds: Number(probe.format?.duration ?? 0),
      maxVolumeDb: Number(max?.[1] ?? -91),
      meanVolumeDb: Number(mean?.[1] ?? -91),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
