/**
 * File bodies (audio recordings, CSV files, logos). Streams are read into memory before sending:
 * the API caps these files at a few megabytes, and a body in memory can be sent again when a
 * retry is needed (a stream could be sent only once).
 */

/** A `Blob`/`File`, bytes (`Uint8Array`, Node `Buffer`, `ArrayBuffer`), a web `ReadableStream` or a Node `Readable`. */
export type FileSource = Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

async function readStream(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** The source as a body `fetch` can send more than once. */
export async function replayableBody(source: FileSource): Promise<Blob | Uint8Array> {
  if (source instanceof Blob || source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (source instanceof ReadableStream) return concat(await readStream(source));
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
  return concat(chunks);
}

/** The content type to send: the caller's, else a `Blob`'s own type, else the fallback. */
export function contentTypeOf(source: FileSource, given: string | undefined, fallback: string): string {
  if (given) return given;
  if (source instanceof Blob && source.type) return source.type;
  return fallback;
}
