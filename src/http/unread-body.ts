/**
 * An answer given before the request body has all arrived (a body over its limit: 413) closes
 * the connection. Closed at once, the socket is reset under a client still sending, and clients
 * that send the whole body before they read the answer (Node's fetch; Chromium happens to cope) report a
 * connection error (`EPIPE`, "fetch failed") instead of the 413: only curl showed the message.
 * So before such an answer leaves, the rest of the body is read and thrown away, up to a bound
 * in bytes and in time; the connection then closes cleanly after the answer. A body beyond the
 * bound is still cut off at once: reading it all would be the cost the limit exists to avoid.
 *
 * Answers that keep the connection open need nothing: Node reads and discards an unread body
 * itself before the next request. A 408 is not delayed: its client is the one too slow to send.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Bytes read and dropped at most beyond a route's body limit: the limit again, at least 4 MiB. */
export const discardAllowance = (bodyLimit: number) => Math.max(bodyLimit, 4 * 1024 * 1024);

/**
 * `defaultBodyTimeoutMs`: REQUEST_TIMEOUT_MS. The rest of a body is waited for as long as the
 * route gave the whole body (see body-timeout.ts), whose own timer stops once an answer is sent.
 */
export function registerUnreadBodyDiscard(app: FastifyInstance, defaultBodyTimeoutMs: number): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const incoming = request.raw;
    // `readableEnded` as well: an injected request (tests) has no `complete`.
    if (incoming.complete || incoming.readableEnded || incoming.destroyed || reply.statusCode === 408) return payload;
    if (String(reply.getHeader('connection') ?? '').toLowerCase() !== 'close') return payload;
    const bodyLimit = request.routeOptions.bodyLimit;
    const allowance = discardAllowance(bodyLimit);
    // A body announced beyond the bound is not waited for at all.
    if (Number(incoming.headers['content-length']) > bodyLimit + allowance) return payload;
    await discardRest(incoming, allowance, request.routeOptions.config.bodyTimeoutMs ?? defaultBodyTimeoutMs);
    return payload;
  });
}

/**
 * Reads and drops what is left of `incoming` until it ends, more than `maxBytes` have been
 * dropped, or `timeoutMs` pass; true when it ended.
 */
function discardRest(incoming: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('close', onClose);
      incoming.off('error', onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > maxBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(incoming.complete);
    const timer = setTimeout(() => finish(false), timeoutMs);
    timer.unref();
    incoming.on('data', onData);
    incoming.once('end', onEnd);
    incoming.once('close', onClose);
    incoming.once('error', onClose);
    incoming.resume();
  });
}
