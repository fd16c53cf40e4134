/**
 * For the egress and mutual-TLS tests: a local HTTP CONNECT proxy that records what it was asked
 * to connect to and sends every tunnel to one local port (as if the checked public address were
 * routed there), and a local HTTPS receiver that may require a client certificate from the test CA.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, 'tls', name), 'utf8');

/** Test certificates (tests/helpers/tls/README.md says how they were made). */
export const tlsFixtures = {
  ca: fixture('ca-cert.pem'),
  serverCert: fixture('server-cert.pem'),
  serverKey: fixture('server-key.pem'),
  clientCert: fixture('client-cert.pem'),
  clientKey: fixture('client-key.pem'),
  expiredClientCert: fixture('expired-client-cert.pem'),
};

export interface ConnectProxy {
  url: string;
  /** Every CONNECT request target (`host:port`), in order. */
  connects: string[];
  /** Where tunnels go: the local receiver's port. */
  routeTo: number;
  /** When set, every tunnel is refused with this status (as a proxy's allow-list would). */
  refuseWith: number | null;
  close(): Promise<void>;
}

export async function startConnectProxy(routeTo = 0): Promise<ConnectProxy> {
  const connects: string[] = [];
  const server = http.createServer((_req, res) => res.writeHead(405).end('CONNECT only'));
  const proxy = { connects, routeTo, refuseWith: null } as ConnectProxy;
  const sockets = new Set<net.Socket>();
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    connects.push(req.url ?? '');
    sockets.add(client);
    if (proxy.refuseWith !== null) {
      client.end(`HTTP/1.1 ${proxy.refuseWith} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const upstream = net.connect(proxy.routeTo, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

export interface TlsReceiver {
  port: number;
  /**
   * One entry per request: the TLS name the client asked for (SNI), and the client certificate's
   * subject CN, or null when none was presented.
   */
  requests: Array<{ path: string; host: string | undefined; tlsName: string | null; clientCn: string | null }>;
  /** Bodies to answer by path (a domain proof's well-known file); any other path answers `ok`. */
  files: Map<string, string>;
  /** Headers to answer by path, with its file (a JSON document's content type). */
  headers: Map<string, Record<string, string>>;
  close(): Promise<void>;
}

/** An HTTPS receiver for receiver.test / localhost / 127.0.0.1; with `requireClientCert` it refuses a TLS handshake without one. */
export async function startTlsReceiver(options: { requireClientCert: boolean }): Promise<TlsReceiver> {
  const requests: TlsReceiver['requests'] = [];
  const files = new Map<string, string>();
  const headers = new Map<string, Record<string, string>>();
  const server = https.createServer(
    {
      cert: tlsFixtures.serverCert,
      key: tlsFixtures.serverKey,
      ca: tlsFixtures.ca,
      requestCert: options.requireClientCert,
      rejectUnauthorized: options.requireClientCert,
    },
    (req, res) => {
      const socket = req.socket as TLSSocket;
      const peer = socket.getPeerCertificate();
      const cn = peer && 'subject' in peer && peer.subject ? String(peer.subject.CN) : null;
      const tlsName = typeof socket.servername === 'string' ? socket.servername : null;
      req.resume();
      req.on('end', () => {
        requests.push({ path: req.url ?? '', host: req.headers.host, tlsName, clientCn: cn });
        res.writeHead(200, headers.get(req.url ?? '') ?? {}).end(files.get(req.url ?? '') ?? 'ok');
      });
    },
  );
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    files,
    headers,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
