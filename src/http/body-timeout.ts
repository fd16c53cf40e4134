/**
 * How long a client may take to send a request body. Node's own `requestTimeout` is one value for
 * the whole server; this gives JSON routes a short budget (REQUEST_TIMEOUT_MS) and routes that
 * take uploads a longer one (their route config `bodyTimeoutMs`, UPLOAD_TIMEOUT_MS), so a client
 * trickling a body cannot hold a connection and a parser for minutes. When the budget runs out
 * the route's own error handler answers 408 and the connection is closed. The budget covers
 * receiving the request only: once the body is parsed (or there is none, as for a GET) the timer
 * stops, so a long answer (a streamed export) is not cut off.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's budget for receiving the body, in ms (default: REQUEST_TIMEOUT_MS). */
    bodyTimeoutMs?: number;
  }
}

const timers = new WeakMap<object, NodeJS.Timeout>();

export function registerBodyTimeout(app: FastifyInstance, defaultMs: number): void {
  app.addHook('preParsing', async (request, reply, payload) => {
    const budget = request.routeOptions.config.bodyTimeoutMs ?? defaultMs;
    const timer = setTimeout(() => {
      if (reply.sent) return;
      // The rest of the body will never be read: close the connection after the answer.
      reply.header('connection', 'close');
      reply.send(new AppError('request_timeout', `The request body did not arrive within ${Math.round(budget / 1000)} s.`));
    }, budget);
    timer.unref();
    timers.set(request, timer);
    const done = () => clearTimeout(timer);
    payload.once('end', done);
    payload.once('close', done);
    payload.once('error', done);
    return payload;
  });
  // The body has been read (a bodyless request's stream never ends, so 'end' alone is not enough).
  app.addHook('preValidation', async (request) => {
    clearTimeout(timers.get(request));
  });
  // An answer is on its way (a refusal may come before the body is read: see unread-body.ts).
  app.addHook('onSend', async (request, _reply, payload) => {
    clearTimeout(timers.get(request));
    return payload;
  });
}
