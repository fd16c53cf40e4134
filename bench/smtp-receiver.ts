/**
 * The mail benchmark's receiver, in its own process so its work is not counted as the sender's:
 * an SMTP server on loopback (smtp-server) that counts the messages it accepts. Talks to its
 * parent over IPC: sends `{ port }` once listening, answers `'count'` with `{ received }`.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

let received = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      received += 1;
      callback();
    });
  },
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.server.address() as AddressInfo).port }));
process.on('message', (message) => {
  if (message === 'count') process.send?.({ received });
});
process.on('disconnect', () => server.close(() => process.exit(0)));
