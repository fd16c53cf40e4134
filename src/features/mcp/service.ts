/**
 * The remote MCP server (Model Context Protocol, the official SDK): what an agent's tools can do
 * here without an account. Tools: `get_entity` (a published profile), `hear_play_link` (who a
 * play link is, how to say it, where its audio is) and `generate_entity` (the paid request: the
 * spec's 402 instruction comes back as the tool's error, with MPP challenges in its `_meta` for
 * clients that pay them; the same call with `payment_reference`, or with an MPP credential in
 * `_meta`, publishes and carries the receipt). Resources: the request's JSON Schema and the agent guide.
 * Every call builds a fresh server (stateless Streamable HTTP), so nothing is kept between them.
 * Every tool call takes a unit of the client's unpaid-request budget, the one
 * `POST /api/entities/generate` draws from (`generate_entity` where that route does: when a
 * payment request would be created), so a JSON-RPC batch costs what its calls cost.
 * This module (with the SDK and zod) is loaded by the first `/mcp` request, not at boot.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { isAgentError } from '../agent-api/agent-errors.js';
import { credentialFromObject, offeredMethods } from '../agent-api/mpp.js';
import type { PaymentCredential } from '../agent-api/payment-header.js';
import { findProfile } from '../profiles/service.js';
import { generateEntity } from '../agent-api/service.js';
import { agentApiUrls } from '../agent-api/urls.js';
import { machineReadableProfile } from '../profiles/views.js';
import { metaOf, resolvePlayLink } from '../play-links/service.js';
import { tokenFromPlayLinkUrl } from '../play-links/urls.js';
import { VERSION } from './card.js';

type Json = Record<string, unknown>;
const ok = (value: Json) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value });
const refused = (value: Json) => ({ ...ok(value), isError: true });

/** The `_meta` keys of MPP over MCP (the Payment authentication scheme's MCP transport). */
const Mcp = {
  credentialMetaKey: 'org.paymentauth/credential',
  paymentRequiredMetaKey: 'org.paymentauth/payment-required',
  receiptMetaKey: 'org.paymentauth/receipt',
} as const;

/** The credential of a tool call: the spec's reference argument, or an MPP credential in `_meta`. */
async function toolCredential(reference: string | undefined, mppCredential: unknown): Promise<PaymentCredential> {
  if (mppCredential !== undefined) {
    const credential = await credentialFromObject(mppCredential);
    return credential ? { kind: 'standard', credential } : { kind: 'unreadable' };
  }
  return reference ? { kind: 'reference', id: reference } : { kind: 'absent' };
}

/** The receipt header's JSON, as MPP clients expect it in `_meta`. */
const receiptObject = (header: string): unknown => JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));

/**
 * An agent API error as the body the HTTP API would answer (status, message and details), with
 * the `Retry-After` of a refusal such as 429 as `retry_after` (seconds).
 */
function agentBody(error: AppError): Json {
  const retryAfter = error.headers['retry-after'];
  return {
    status: error.code,
    message: error.message,
    ...error.details,
    ...(retryAfter === undefined ? {} : { retry_after: Number(retryAfter) }),
  };
}

/** The client a server answers: the address its unpaid-request budget is counted under. */
export interface McpClientInfo {
  address: string;
}

/**
 * The dialect the tools' input schemas declare in tools/list. The SDK converts them with zod's
 * draft-07 target, which stamps draft-07 (a `$schema` Ajv 2020 does not know); these shapes use
 * only keywords that mean the same in 2020-12 (MCP's default dialect), so they say 2020-12 and
 * compile under strict validators (tests/published-schemas.test.ts). For the same reason a URL's
 * `format: "uri"` is left out (`meta`): a strict validator with no formats registered refuses the
 * schema, and the tool's own check (a WHATWG URL) is not RFC 3986's anyway.
 */
const DIALECT = { $schema: 'https://json-schema.org/draft/2020-12/schema' };

/**
 * What every call's fresh server shares, built once per process: each server would otherwise
 * build its own Ajv instance (the SDK's default, used only for elicitation, which these tools
 * never ask for) and its tools' zod objects, which made an unpaid call cost twice the HTTP 402
 * it stands for (bench/mcp.ts).
 */
const shared = {
  jsonSchemaValidator: new AjvJsonSchemaValidator(),
  getEntity: z.object({ slug: z.string().min(1).max(300).describe('The part after /e/ in the profile URL') }).meta(DIALECT),
  hearPlayLink: z
    .object({
      url: z
        .string()
        .url()
        .max(2048)
        .meta({ format: undefined })
        .describe('A play link, e.g. https://voicename.example/p/abc123 (an absolute URL)'),
    })
    .meta(DIALECT),
  generateEntity: z
    .object({
      request: z.record(z.string(), z.unknown()).describe('The generation request body (see the JSON Schema resource)'),
      payment_reference: z.string().max(200).optional().describe('mpp_instruction.reference of the paid intent'),
    })
    .meta(DIALECT),
};

/** What a tool's handler is given besides its arguments: the call's `_meta` (an MPP credential rides there). */
export interface ToolCallExtra {
  _meta?: Record<string, unknown> | undefined;
}
type ToolResult = CallToolResult;

/** A read tool's budget check: the 429 as the tool's error result, or null to go on. */
async function overBudget(deps: Deps, client: McpClientInfo): Promise<ToolResult | null> {
  try {
    await deps.agentApi.admitUnpaidFrom(client.address);
    return null;
  } catch (error) {
    if (!isAgentError(error)) throw error;
    return refused(agentBody(error));
  }
}

async function getEntityTool(deps: Deps, client: McpClientInfo, { slug }: z.infer<typeof shared.getEntity>): Promise<ToolResult> {
  const refusal = await overBudget(deps, client);
  if (refusal) return refusal;
  const found = await findProfile(deps, decodeURIComponent(slug));
  if (found.kind === 'not_found') return refused({ status: 'not_found', message: 'No entity has this slug.' });
  if (found.kind === 'gone') return refused({ status: 'gone', message: 'This entity was deleted.' });
  return ok(machineReadableProfile(deps, found.entity));
}

async function hearPlayLinkTool(
  deps: Deps,
  client: McpClientInfo,
  { url }: z.infer<typeof shared.hearPlayLink>,
): Promise<ToolResult> {
  const refusal = await overBudget(deps, client);
  if (refusal) return refusal;
  const token = tokenFromPlayLinkUrl(deps.config.baseUrl, url);
  const link = token ? await resolvePlayLink(deps, token) : null;
  if (!link) return refused({ status: 'not_found', message: 'That is not a live play link of this service.' });
  return ok(metaOf(deps, link));
}

/**
 * The RFC 9457 problem of a payment-required answer, typed as MPP's MCP transport types it: no
 * MPP credential (or the spec's reference) is "payment required", an MPP credential that did not
 * pay is "verification failed", one that could not be read is "malformed credential". The error
 * form (payment-form.ts) takes its JSON-RPC code from the type.
 */
function paymentProblem(credential: PaymentCredential, detail: string, challengeId: unknown): Json {
  const [type, title] =
    credential.kind === 'standard'
      ? ['verification-failed', 'Verification Failed']
      : credential.kind === 'unreadable'
        ? ['malformed-credential', 'Malformed Credential']
        : ['payment-required', 'Payment Required'];
  return { type: `https://paymentauth.org/problems/${type}`, title, status: 402, detail, challengeId };
}

async function generateEntityTool(
  deps: Deps,
  client: McpClientInfo,
  { request, payment_reference }: z.infer<typeof shared.generateEntity>,
  extra: ToolCallExtra,
): Promise<ToolResult> {
  const credential = await toolCredential(payment_reference, extra._meta?.[Mcp.credentialMetaKey]);
  try {
    const published = await generateEntity(deps, {
      body: request,
      credential,
      admitUnpaid: async () => void (await deps.agentApi.admitUnpaidFrom(client.address)),
    });
    return {
      ...ok(published.body as unknown as Json),
      _meta: { [Mcp.receiptMetaKey]: receiptObject(published.receipt) },
    };
  } catch (error) {
    if (!isAgentError(error)) throw error;
    const { challenges, ...body } = agentBody(error);
    // MPP's payment-required result: the challenges in _meta, the spec's instruction as the content.
    if (!Array.isArray(challenges) || challenges.length === 0) return refused(body);
    const problem = paymentProblem(credential, error.message, (challenges[0] as { id?: unknown }).id);
    return { ...refused(body), _meta: { [Mcp.paymentRequiredMetaKey]: { httpStatus: 402, challenges, problem } } };
  }
}

/**
 * The tools by name: their input schemas and handlers, the same for the SDK's server and the
 * direct answer to a single call (direct-call.ts).
 */
export const TOOLS = {
  get_entity: { inputSchema: shared.getEntity, run: getEntityTool },
  hear_play_link: { inputSchema: shared.hearPlayLink, run: hearPlayLinkTool },
  generate_entity: { inputSchema: shared.generateEntity, run: generateEntityTool },
} as const;

/** `capabilities.experimental.payment.methods`: each MPP method this deployment offers, with its intent. */
const paymentMethods = (deps: Deps) =>
  Object.fromEntries(offeredMethods(deps).map((method) => [method, { intents: ['charge'] }]));

export function createMcpServer(deps: Deps, client: McpClientInfo): McpServer {
  const server = new McpServer(
    { name: 'voicename', title: 'voicename: how names are said', version: VERSION },
    {
      instructions: `Publish and look up how names are said. Agent guide: ${deps.config.siteUrl}/llms.txt`,
      jsonSchemaValidator: shared.jsonSchemaValidator,
      // MPP's MCP capability (draft-payment-transport-mcp): the methods generate_entity's challenges offer.
      capabilities: { experimental: { payment: { methods: paymentMethods(deps) } } },
    },
  );

  server.registerTool(
    'get_entity',
    {
      title: 'Get an agent profile',
      description: 'The machine-readable profile of a published agent (name, type, operator, claim, audio URL), by its slug.',
      inputSchema: TOOLS.get_entity.inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => getEntityTool(deps, client, args),
  );

  server.registerTool(
    'hear_play_link',
    {
      title: 'Hear a play link',
      description:
        'Resolves a public voicename play link (…/p/<token>) to the name it says: display name, phonetic spelling, ' +
        'pronouns and the URL of its MP3.',
      inputSchema: TOOLS.hear_play_link.inputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args) => hearPlayLinkTool(deps, client, args),
  );

  server.registerTool(
    'generate_entity',
    {
      title: 'Publish an agent profile (1.00 AUD)',
      description:
        'Publishes /e/<slug> with text-to-speech audio of the name. Without payment the tool answers the payment ' +
        'instruction (status payment_required, mpp_instruction with amount, currency, address and reference) and, for ' +
        'MPP clients, the payment challenges in _meta["org.paymentauth/payment-required"] (a client that declared ' +
        'capabilities.experimental.payment at initialize gets them as JSON-RPC error -32042). Pay, then call again with ' +
        'the same arguments and either payment_reference = mpp_instruction.reference or an MPP credential in ' +
        `_meta["org.paymentauth/credential"]. Fields and limits: ${agentApiUrls(deps).schema}.`,
      inputSchema: TOOLS.generate_entity.inputSchema,
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
    },
    async (args, extra) => generateEntityTool(deps, client, args, extra),
  );

  server.registerResource(
    'entity-generation-schema',
    agentApiUrls(deps).schema,
    { title: 'JSON Schema of the generation request', mimeType: 'application/schema+json' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/schema+json', text: JSON.stringify(deps.agentApi.schema) }],
    }),
  );

  return server;
}
