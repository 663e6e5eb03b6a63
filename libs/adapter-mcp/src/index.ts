/**
 * @ahp/adapter-mcp — an MCP server that gives any MCP-capable agent AHP as tools. Run it over
 * stdio with the `ahp-mcp` command, or connect `createAhpMcpServer()` to a transport of your own.
 */
export { MAX_WAIT_SECONDS, createAhpMcpServer } from './server.js';
export type { AhpMcpClient, AhpMcpServerOptions } from './server.js';
export { serveAhpMcpHttp } from './http.js';
export type { AhpMcpHttpOptions, AhpMcpHttpServer } from './http.js';
