/**
 * `POST /mcp`: the MCP server over Streamable HTTP, stateless (no session: every request gets a
 * fresh server and transport, so any process can answer it), JSON answers instead of a stream.
 * Rate-limited per client like the unpaid agent API, per HTTP request here and per tool call in
 * the server (a JSON-RPC batch is one request carrying many calls). `GET`/`DELETE /mcp` (streams and sessions)
 * answer 405. The only session id given out is the signed note of a client that reads MPP's
 * payment errors (payment-form.ts); nothing is kept for it. The server card is at `/.well-known/mcp/server-card.json`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { registerRateLimit } from '../../http/rate-limit-fields.js';
import { MCP_PATH, serverCard } from './card.js';
import {
  asPaymentError,
  declaresPayment,
  hasPaymentSession,
  paymentSessionId,
  SESSION_HEADER,
  withPaymentErrors,
} from './payment-form.js';

/** The MCP SDK and zod load with the first `/mcp` request, not at boot (ARCHITECTURE.md, "Start and stop"). */
const loadServer = () =>
  Promise.all([
    import('./service.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('./direct-call.js'),
  ]);

/**
 * The request as the SDK's web-standard transport reads it: its headers, with the body Fastify
 * has already parsed passed beside it. The SDK's Node transport instead rebuilds the whole
 * request and response as web streams (through @hono/node-server), which cost more than the
 * tool call itself (bench/mcp.ts).
 */
function webRequest(request: FastifyRequest, baseUrl: string): Request {
  const headers = new Headers();
  const raw = request.raw.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return new Request(new URL(request.url, baseUrl), { method: request.method, headers });
}

export const mcpRoutes = (deps: Deps) => async (app: FastifyInstance) => {
  await registerRateLimit(app, 'mcp', {
    ...deps.rateLimits.options('mcp'),
    max: deps.config.entityUnpaidRateLimitPerMinute,
    timeWindow: 60_000,
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`, {
        headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
      }),
  });

  app.post(MCP_PATH, { schema: { hide: true }, bodyLimit: 65_536 }, async (request, reply) => {
    const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }, { answerToolCallDirectly }] = await loadServer();
    const client = { address: request.ip };
    // MPP's error form for clients that declared it at initialize (payment-form.ts).
    const errorForm = hasPaymentSession(deps, request.headers[SESSION_HEADER]);
    const answer = errorForm ? withPaymentErrors : (text: string) => text;
    if (declaresPayment(request.body)) reply.header(SESSION_HEADER, paymentSessionId(deps));
    // A single plain tool call is answered without the SDK's per-request server (direct-call.ts).
    const direct = await answerToolCallDirectly(
      deps,
      client,
      request.headers,
      request.body,
      errorForm ? asPaymentError : undefined,
    );
    if (direct !== null) return reply.header('content-type', 'application/json').send(direct);
    const server = createMcpServer(deps, client);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      // JSON answers (no stream): the response is complete when the transport hands it over.
      const response = await transport.handleRequest(webRequest(request, deps.config.baseUrl), { parsedBody: request.body });
      reply.code(response.status);
      response.headers.forEach((value, name) => void reply.header(name, value));
      return reply.send(response.body === null ? undefined : answer(await response.text()));
    } finally {
      void transport.close();
      void server.close();
    }
  });

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      schema: { hide: true },
      handler: async (_request, reply) =>
        reply
          .code(405)
          .header('allow', 'POST')
          .send({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'Method not allowed: this server is stateless; POST JSON-RPC.' },
            id: null,
          }),
    });
  }

  app.get('/.well-known/mcp/server-card.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(serverCard(deps)),
  );
};
