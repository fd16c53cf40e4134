/**
 * Organisation logos: a PNG, JPEG or WebP upload decoded and re-encoded by ffmpeg as a plain PNG
 * of at most 512x512 with no metadata. Nothing the uploader sent is served as it came: no SVG
 * (scripts), no polyglot files, no EXIF (locations). ffmpeg runs with the audio pipeline's time
 * and memory caps, and refuses images over 40 megapixels before decoding them.
 */
import { type ResourceLimits, runFfmpeg } from '../audio/ffmpeg.js';
import { AppError } from '../errors.js';

export const MAX_LOGO_BYTES = 1024 * 1024;
export const LOGO_MAX_SIDE = 512;
export const LOGO_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The ffmpeg demuxer for the image's real format (from its bytes, not its declared type), or null. */
function demuxerOf(data: Buffer): 'png_pipe' | 'jpeg_pipe' | 'webp_pipe' | null {
  if (data.subarray(0, 8).equals(PNG)) return 'png_pipe';
  if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg_pipe';
  if (data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp_pipe';
  return null;
}

export interface LogoEncoder {
  (upload: Buffer): Promise<Buffer>;
}

export function createLogoEncoder(options: {
  ffmpegPath: () => string;
  timeoutMs: number;
  limits?: ResourceLimits;
}): LogoEncoder {
  return async (upload) => {
    if (upload.length === 0) throw new AppError('image_empty', 'The logo file is empty.');
    const demuxer = demuxerOf(upload);
    if (!demuxer) {
      throw new AppError('image_unsupported_format', 'A logo must be a PNG, JPEG or WebP image (SVG is not accepted).');
    }
    const scale = `scale='min(${LOGO_MAX_SIDE},iw)':'min(${LOGO_MAX_SIDE},ih)':force_original_aspect_ratio=decrease`;
    const run = await runFfmpeg(
      options.ffmpegPath(),
      [
        '-v',
        'error',
        '-max_pixels',
        '40000000',
        '-f',
        demuxer,
        '-i',
        'pipe:0',
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
        stdin: upload,
        timeoutMs: options.timeoutMs,
        maxStdoutBytes: 4 * 1024 * 1024,
        ...(options.limits ? { limits: options.limits } : {}),
      },
    ).catch(() => null);
    if (!run || run.code !== 0 || !run.stdout.subarray(0, 8).equals(PNG)) {
      throw new AppError('image_corrupt', 'The logo could not be read as an image; send another file.');
    }
    return run.stdout;
  };
}
