/**
 * The official MCP SDK's modules, loaded on first use: a gateway without `AHP_MCP_CONFIG_FILE`
 * (most of them) never pays for importing the SDK and its dependencies at start-up.
 */
import type * as ClientIndex from '@modelcontextprotocol/sdk/client/index.js';
import type * as ClientStdio from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as ClientHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as ServerIndex from '@modelcontextprotocol/sdk/server/index.js';
import type * as ServerHttp from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as Types from '@modelcontextprotocol/sdk/types.js';

type ServerSdk = typeof ServerIndex & typeof ServerHttp & Pick<typeof Types, 'CallToolRequestSchema' | 'ListToolsRequestSchema'>;
type ClientSdk = typeof ClientIndex &
  typeof ClientStdio &
  typeof ClientHttp &
  Pick<typeof Types, 'CallToolResultSchema' | 'ListToolsResultSchema' | 'McpError' | 'ErrorCode'>;

let server: Promise<ServerSdk> | undefined;
let client: Promise<ClientSdk> | undefined;

/** The SDK's server side: `Server`, the Streamable HTTP transport, the request schemas. */
export function serverSdk(): Promise<ServerSdk> {
  server ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([index, http, types]) => ({ ...index, ...http, CallToolRequestSchema: types.CallToolRequestSchema, ListToolsRequestSchema: types.ListToolsRequestSchema }));
  return server;
}

/** The SDK's client side: `Client`, the stdio and Streamable HTTP transports, the result schemas, its error class and codes. */
export function clientSdk(): Promise<ClientSdk> {
  client ??= Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([index, stdio, http, types]) => ({
    ...index,
    ...stdio,
    ...http,
    CallToolResultSchema: types.CallToolResultSchema,
    ListToolsResultSchema: types.ListToolsResultSchema,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
  }));
  return client;
}
