/**
 * Organisation logos: a PNG, JPEG or WebP upload decoded and re-encoded by ffmpeg as a plain PNG
 * of at most 512x512 with no metadata. Nothing the uploader sent is served as it came: no SVG
 * (scripts), no polyglot files, no EXIF (locations). ffmpeg runs with the audio pipeline's time
 * and memory caps, and refuses images over 40 megapixels before decoding them.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { type ResourceLimits, runFfmpeg } from '../audio/ffmpeg.js';
import { AppError } from '../errors.js';
import { makeWorkFolder } from '../lib/process-temp.js';

export const MAX_LOGO_BYTES = 1024 * 1024;
export const LOGO_MAX_SIDE = 512;
export const LOGO_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image's real format (from its bytes, not its declared type) as a file extension, or null. */
function extensionOf(data: Buffer): 'png' | 'jpg' | 'webp' | null {
  if (data.subarray(0, 8).equals(PNG)) return 'png';
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpg';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

export interface LogoEncoder {
  (upload: Buffer): Promise<Buffer>;
}

export function createLogoEncoder(options: {
  ffmpegPath: () => string;
  timeoutMs: number;
  /** Found on first use, like the binary: nothing is looked up at start-up. */
  limits?: () => ResourceLimits;
}): LogoEncoder {
  return async (upload) => {
    if (upload.length === 0) throw new AppError('image_empty', 'The logo file is empty.');
    const extension = extensionOf(upload);
    if (!extension) {
      throw new AppError('image_unsupported_format', 'A logo must be a PNG, JPEG or WebP image (SVG is not accepted).');
    }
    const scale = `scale='min(${LOGO_MAX_SIDE},iw)':'min(${LOGO_MAX_SIDE},ih)':force_original_aspect_ratio=decrease`;
    // A file, not a pipe: the image2 demuxer reads every ffmpeg's WebP (older piped WebP probing fails).
    const dir = await makeWorkFolder('logo');
    const input = path.join(dir, `upload.${extension}`);
    let run: Awaited<ReturnType<typeof runFfmpeg>> | null;
    try {
      await fs.writeFile(input, upload, { mode: 0o600 });
      run = await runFfmpeg(
        options.ffmpegPath(),
        // -max_pixels refuses decompression bombs before decoding; -pattern_type none reads one file.
        [
          '-v',
          'error',
          '-max_pixels',
          '40000000',
          '-f',
          'image2',
          '-pattern_type',
          'none',
          '-i',
          input,
          '-frames:v',
          '1',
          '-vf',
          scale,
          '-map_metadata',
          '-1',
          '-c:v',
          'png',
          '-f',
          'image2pipe',
          'pipe:1',
        ],
        {
          timeoutMs: options.timeoutMs,
          maxStdoutBytes: 4 * 1024 * 1024,
          ...(options.limits ? { limits: options.limits() } : {}),
        },
      ).catch(() => null);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
    if (!run || run.code !== 0 || !run.stdout.subarray(0, 8).equals(PNG)) {
      throw new AppError('image_corrupt', 'The logo could not be read as an image; send another file.');
    }
    return run.stdout;
  };
}
