/**
 * A small reader of `multipart/form-data` bodies, enough for the dashboard's one upload form
 * (text fields and one file, already read whole within the route's body limit). Browsers send
 * exactly this shape; anything else is a 400, never a 500. Not @fastify/multipart: it reads the
 * stream after Fastify's body limit and body budget have stopped applying (ARCHITECTURE.md,
 * "Multipart forms").
 */
import { AppError } from '../../errors.js';

export interface UploadedFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, UploadedFile>;
}

/** Forms here have a handful of fields; more parts than this is not a browser's form. */
const MAX_PARTS = 20;
const MAX_HEADER_BYTES = 2048;

const malformed = () => new AppError('parameter_invalid', 'The form could not be read; choose the file and send it again.');

/** The boundary of a `multipart/form-data` content type, or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  const match = /^multipart\/form-data\s*;(?:.*;)?\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType ?? '');
  return match ? ((match[1] ?? match[2]) as string) : null;
}

/** A parameter of a Content-Disposition header (`name`, `filename`), quoted or not. */
function dispositionParam(header: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, 'i').exec(header);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/** Splits the body at its boundaries; text parts become fields (UTF-8), parts with a filename files. */
export function parseMultipart(body: Buffer, contentType: string | undefined): MultipartForm {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw malformed();
  const delimiter = Buffer.from(`--${boundary}`);
  const form: MultipartForm = { fields: {}, files: {} };
  let position = body.indexOf(delimiter);
  if (position < 0) throw malformed();
  for (let parts = 0; ; parts++) {
    position += delimiter.length;
    if (body.subarray(position, position + 2).toString() === '--') return form;
    if (body.subarray(position, position + 2).toString() !== '\r\n' || parts >= MAX_PARTS) throw malformed();
    position += 2;
    const headerEnd = body.indexOf('\r\n\r\n', position);
    if (headerEnd < 0 || headerEnd - position > MAX_HEADER_BYTES) throw malformed();
    const headers = body.subarray(position, headerEnd).toString('utf8').split('\r\n');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw malformed();
    const content = body.subarray(headerEnd + 4, next);
    const disposition = headers.find((h) => /^content-disposition:/i.test(h));
    const name = disposition === undefined ? undefined : dispositionParam(disposition, 'name');
    if (name === undefined) throw malformed();
    const filename = disposition === undefined ? undefined : dispositionParam(disposition, 'filename');
    if (filename !== undefined) {
      const type = headers.find((h) => /^content-type:/i.test(h));
      form.files[name] ??= {
        filename,
        contentType: type ? type.slice(type.indexOf(':') + 1).trim() : 'application/octet-stream',
        data: Buffer.from(content),
      };
    } else {
      form.fields[name] ??= content.toString('utf8');
    }
    position = next + 2;
  }
}
