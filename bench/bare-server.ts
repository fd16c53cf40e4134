/** The baseline: a bare node:http server answering every request with BARE_ANSWER (JSON: status, headers, body). */
import http from 'node:http';

const answer = JSON.parse(process.env.BARE_ANSWER ?? '{}') as { status: number; headers: Record<string, string>; body: string };
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
