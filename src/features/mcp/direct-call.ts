/**
 * A single stateless `tools/call` answered without building the SDK's server and transport for it.
 * Every `/mcp` request otherwise builds a fresh McpServer, registers the tools, connects a
 * transport, and wraps the call in web Request and Response objects: that, not the tool, made an
 * unpaid call cost twice the HTTP 402 it stands for (bench/mcp.ts). Here the same tool functions
 * run on the same checks, using the SDK's own schemas (the JSON-RPC message, the call, the tool's
 * input, the result), so the bytes answered are the ones the SDK would answer.
 *
 * Only the plain case is taken: one JSON-RPC request, `tools/call` of a known tool, headers the
 * transport accepts, valid arguments, no task. Anything else (batches, notifications, other
 * methods, unknown tools, invalid input, bad headers) returns null and goes to the SDK, which
 * answers it, errors included, as it always has.
 */
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import { safeParseAsync } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ErrorCode,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { Deps } from '../../deps.js';
import { type McpClientInfo, type ToolCallExtra, TOOLS } from './service.js';

/** The request headers the transport checks (lower-case names, as Node gives them). */
export interface McpRequestHeaders {
  accept?: string | undefined;
  'content-type'?: string | undefined;
  'mcp-protocol-version'?: string | undefined;
}

/** What the transport would let through to the server; otherwise it answers an error itself. */
function transportAccepts(headers: McpRequestHeaders): boolean {
  const accept = headers.accept;
  const version = headers['mcp-protocol-version'];
  return (
    accept !== undefined &&
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    isJsonContentType(headers['content-type'] ?? null) &&
    (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  );
}

const isToolName = (name: string): name is keyof typeof TOOLS => Object.hasOwn(TOOLS, name);

/**
 * The JSON text the SDK's stateless transport would answer (with status 200 and
 * `content-type: application/json`) to `body`, or null when the SDK must answer it. `present`
 * may reshape the response before it is written (MPP's error form, payment-form.ts).
 */
export async function answerToolCallDirectly(
  deps: Deps,
  client: McpClientInfo,
  headers: McpRequestHeaders,
  body: unknown,
  present: (response: Record<string, unknown>) => unknown = (response) => response,
): Promise<string | null> {
  if (Array.isArray(body) || !transportAccepts(headers)) return null;
  const message = JSONRPCMessageSchema.safeParse(body);
  if (!message.success || !isJSONRPCRequest(message.data) || message.data.method !== 'tools/call') return null;
  const call = CallToolRequestSchema.safeParse(message.data);
  if (!call.success || call.data.params.task !== undefined) return null;
  const { name, arguments: args, _meta } = call.data.params;
  if (!isToolName(name)) return null;
  const tool = TOOLS[name];
  const input = await safeParseAsync(tool.inputSchema, args ?? {});
  if (!input.success) return null;

  const id = message.data.id;
  const extra: ToolCallExtra = { _meta };
  let result: unknown;
  try {
    result = await tool.run(deps, client, input.data as never, extra);
  } catch (error) {
    // McpServer's answer to a tool that throws: the message as the tool's error result.
    result = { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
  }
  const checked = CallToolResultSchema.safeParse(result);
  if (!checked.success) {
    // The SDK's server answers a result outside the protocol's shape with this JSON-RPC error.
    const error = {
      code: ErrorCode.InvalidParams,
      message: `MCP error ${ErrorCode.InvalidParams}: Invalid tools/call result: ${checked.error.message}`,
    };
    return JSON.stringify({ jsonrpc: '2.0', id, error });
  }
  // Key order as the SDK's Protocol writes a response.
  return JSON.stringify(present({ result: checked.data, jsonrpc: '2.0', id }));
}
