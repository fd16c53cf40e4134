/**
 * A real webhook receiver on loopback (node:http): records every request with its raw body,
 * headers and timing, and answers with whatever `respond` says (default 200).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body bytes as text, exactly as received. */
  body: string;
  startedAt: number;
  endedAt: number | null;
}

export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  respond: (request: ReceivedRequest) => Reply;
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(respond: (request: ReceivedRequest) => Reply = () => ({ status: 200 })): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const receiver = { requests, respond } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    const record: ReceivedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: '',
      startedAt: Date.now(),
      endedAt: null,
    };
    const finish = () => {
      if (record.endedAt === null) record.endedAt = Date.now();
    };
    res.on('close', finish);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      record.body = Buffer.concat(chunks).toString('utf8');
      requests.push(record);
      const reply = receiver.respond(record);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers }).end(reply.body ?? 'ok');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  receiver.port = port;
  receiver.url = `http://127.0.0.1:${port}`;
  receiver.waitFor = async (count, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (requests.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} of ${count} requests`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return receiver;
}
