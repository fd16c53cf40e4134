/**
 * What is known about the MCP server without its SDK: its path, version and server card
 * (`/.well-known/mcp/server-card.json`). The server itself (service.ts, with the MCP SDK and
 * zod, whose resident memory an idle server should not carry) is loaded by the first `/mcp` request.
 */
import type { Deps } from '../../deps.js';
import { agentApiUrls } from '../agent-api/urls.js';

export const MCP_PATH = '/mcp';
export const VERSION = '1.0.0';

/** The MCP server card (`/.well-known/mcp/server-card.json`): where and what the server is. */
export function serverCard(deps: Deps): Record<string, unknown> {
  return {
    name: 'voicename',
    title: 'voicename: how names are said',
    version: VERSION,
    description: 'Publish agent profiles with spoken names (1.00 AUD each) and resolve play links to how a name is said.',
    transport: { type: 'streamable-http', url: `${deps.config.siteUrl}${MCP_PATH}` },
    authentication: { required: false },
    tools: ['get_entity', 'hear_play_link', 'generate_entity'],
    resources: [agentApiUrls(deps).schema],
    documentation: `${deps.config.siteUrl}/llms.txt`,
    // How generation is paid: MPP in the tool itself and over HTTP; x402 (when configured) over HTTP only.
    payment_methods: [
      { protocol: 'mpp', transports: ['mcp', 'http'], url: agentApiUrls(deps).generate },
      ...(deps.config.x402 ? [{ protocol: 'x402', version: 2, transports: ['http'], url: agentApiUrls(deps).generate }] : []),
    ],
  };
}
