/**
 * The webhook benchmark's receivers, in their own process: RECEIVERS node:http servers on
 * loopback answering every POST with 200, as a fast receiver does. The first line on stdout is
 * the JSON list of their ports. `GET /count` (on any of them) answers how many POSTs arrived over
 * all of them and the milliseconds between the first and the last; `GET /reset` starts again.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let count = 0;
let first = 0;
let last = 0;

const server = () =>
  http.createServer((req, res) => {
    if (req.method === 'GET') {
      if (req.url === '/reset') count = first = last = 0;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count, spanMs: last - first }));
      return;
    }
    req.resume();
    req.on('end', () => {
      const now = performance.now();
      if (count === 0) first = now;
      count += 1;
      last = now;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });

const servers = Array.from({ length: Number(process.env.RECEIVERS ?? 1) }, server);
const ports = await Promise.all(
  servers.map(
    (each) => new Promise<number>((resolve) => each.listen(0, '127.0.0.1', () => resolve((each.address() as AddressInfo).port))),
  ),
);
process.stdout.write(`${JSON.stringify(ports)}\n`);
process.on('SIGTERM', () => process.exit(0));
