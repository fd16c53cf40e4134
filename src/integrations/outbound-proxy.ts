/**
 * Connecting through the operator's egress proxy (OUTBOUND_PROXY_URL) with HTTP CONNECT, for
 * `outbound-http.ts`. The tunnel is opened to the IP literal `outbound-http.ts` already checked,
 * never to the host name, so the proxy cannot resolve the name again to another (private)
 * address; TLS to the destination then runs inside the tunnel with the host name as SNI and as
 * the name the certificate must carry, and the request's Host header stays the name.
 *
 * Self-contained like `outbound-http.ts`: only node: imports.
 */
import net from 'node:net';
import tls from 'node:tls';

/** TLS options for the destination: a client certificate (mutual TLS) and, in tests, a CA. */
export interface DestinationTls {
  cert?: string;
  key?: string;
  ca?: string;
}

/** What undici passes a custom connector. */
interface ConnectOptions {
  hostname: string;
  protocol: string;
  port: string;
  servername?: string | null;
}

type ConnectCallback = (...args: [null, net.Socket | tls.TLSSocket] | [Error, null]) => void;

/** An error whose `code` `outbound-http.ts` classifies as a failed connection. */
class ProxyError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const MAX_PROXY_ANSWER_BYTES = 16 * 1024;

/** `host:port` as CONNECT names it (IPv6 in brackets). */
const authority = (address: string, port: number) => `${net.isIPv6(address) ? `[${address}]` : address}:${port}`;

/**
 * An undici `connect` function that tunnels through `proxy` to `address` (already checked) and,
 * for https destinations, starts TLS inside the tunnel.
 */
export function proxiedConnector(proxy: URL, address: string, timeoutMs: number, destinationTls: DestinationTls) {
  return (options: ConnectOptions, callback: ConnectCallback): void => {
    const https = options.protocol === 'https:';
    const port = Number(options.port) || (https ? 443 : 80);
    const proxyPort = Number(proxy.port) || (proxy.protocol === 'https:' ? 443 : 80);
    const proxyHost = proxy.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket =
      proxy.protocol === 'https:'
        ? tls.connect({ host: proxyHost, port: proxyPort, ...(net.isIP(proxyHost) ? {} : { servername: proxyHost }) })
        : net.connect({ host: proxyHost, port: proxyPort });
    let done = false;
    const finish = (...args: [null, net.Socket | tls.TLSSocket] | [Error, null]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (args[0]) socket.destroy();
      callback(...args);
    };
    const timer = setTimeout(
      () => finish(new ProxyError('UND_ERR_CONNECT_TIMEOUT', 'Connecting through the egress proxy timed out.'), null),
      timeoutMs,
    );
    // Kept for the socket's life: a late error on the tunnel must not become an uncaught one.
    socket.on('error', (error) => finish(error, null));

    const target = authority(address, port);
    const credentials =
      proxy.username === ''
        ? ''
        : `proxy-authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}\r\n`;
    socket.once(proxy.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n${credentials}\r\n`);
    });

    let answer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      answer = Buffer.concat([answer, chunk]);
      const end = answer.indexOf('\r\n\r\n');
      if (end === -1) {
        if (answer.length > MAX_PROXY_ANSWER_BYTES)
          finish(new ProxyError('ECONNRESET', 'The egress proxy answer is too long.'), null);
        return;
      }
      socket.off('data', onData);
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer.subarray(0, end).toString('latin1'))?.[1];
      if (status === undefined || !status.startsWith('2')) {
        finish(new ProxyError('ECONNREFUSED', `The egress proxy refused the tunnel (${status ?? 'no status'}).`), null);
        return;
      }
      // Anything after the proxy's answer already belongs to the destination.
      const rest = answer.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      if (!https) {
        finish(null, socket);
        return;
      }
      const name = options.hostname.replace(/^\[(.*)\]$/, '$1');
      const secure = tls.connect({
        socket,
        ...(net.isIP(name) ? {} : { servername: name }),
        // The certificate is checked against the name the customer gave, not the address.
        checkServerIdentity: (_host, cert) => tls.checkServerIdentity(name, cert),
        ALPNProtocols: ['http/1.1'],
        ...destinationTls,
      });
      secure.once('secureConnect', () => {
        secure.removeAllListeners('error');
        finish(null, secure);
      });
      secure.once('error', (error) => finish(error, null));
    };
    socket.on('data', onData);
  };
}
