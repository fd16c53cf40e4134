/**
 * Node's fetch (undici) run in a child process, as a real client is. A fetch in the test's own
 * process shares the server's event loop, so the server cannot answer and close while the body
 * is still being written, and a client that would see `EPIPE` sees the answer instead.
 */
import { spawn } from 'node:child_process';

export interface ChildFetchRequest {
  method: string;
  headers: Record<string, string>;
  /** A body of this many bytes (of `fill`, 0 by default), made in the child. */
  bodyBytes: number;
  fill?: number;
  /** Sent chunked, without a Content-Length. */
  chunked?: boolean;
}

export type ChildFetchResult =
  { status: number; headers: Record<string, string>; text: string; error?: undefined } | { error: string; status?: undefined };

const script = `
const [url, raw] = process.argv.slice(1);
const request = JSON.parse(raw);
const bytes = new Uint8Array(request.bodyBytes).fill(request.fill ?? 0);
let offset = 0;
const body = new ReadableStream({
  pull(controller) {
    if (offset >= bytes.length) return controller.close();
    controller.enqueue(bytes.subarray(offset, offset + 65536));
    offset += 65536;
  },
});
const headers = { ...request.headers, ...(request.chunked ? {} : { 'content-length': String(bytes.length) }) };
try {
  const response = await fetch(url, { method: request.method, headers, body, duplex: 'half' });
  const text = await response.text();
  console.log(JSON.stringify({ status: response.status, headers: Object.fromEntries(response.headers), text }));
} catch (error) {
  console.log(JSON.stringify({ error: String(error.cause?.code ?? error.cause?.message ?? error.message) }));
}
`;

export async function fetchInChildProcess(url: string, request: ChildFetchRequest): Promise<ChildFetchResult> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, url, JSON.stringify(request)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`the fetch process exited with ${code}: ${output}`);
  return JSON.parse(output) as ChildFetchResult;
}
