/**
 * The export benchmark's baseline: a bare node:http server that answers every request with the
 * bytes of the files listed in BLOB_LIST (one path a line), read one after another from disk and
 * piped into one response, with no ZIP and no database: what streaming the same audio costs.
 */
import fs from 'node:fs';
import http from 'node:http';
import { once } from 'node:events';

const files = fs
  .readFileSync(process.env.BLOB_LIST as string, 'utf8')
  .split('\n')
  .filter(Boolean);
const server = http.createServer((req, res) => {
  req.resume();
  if (req.url === '/healthz') return void res.end('ok');
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  void (async () => {
    for (const file of files) {
      for await (const chunk of fs.createReadStream(file)) if (!res.write(chunk)) await once(res, 'drain');
    }
    res.end();
  })().catch(() => res.destroy());
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
