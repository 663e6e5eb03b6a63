#!/usr/bin/env node
/**
 * `ahp-mcp`: the AHP MCP server over stdio, for MCP clients that start their servers as commands
 * (Claude Desktop, Cursor, Codex, the MCP inspector…); `ahp-mcp --http [--port N] [--host H]`
 * serves it over Streamable HTTP instead (see http.ts for who may call it). Configuration from the
 * environment: AHP_URL (the gateway's agent endpoint; several separated by commas) and AHP_TOKEN
 * (the agent's token). stdout carries the MCP protocol only: everything else goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { connect } from '@ahp/sdk';
import { parseArgs } from 'node:util';
import { serveAhpMcpHttp } from './http.js';
import { createAhpMcpServer } from './server.js';

async function main(): Promise<void> {
  const url = process.env['AHP_URL'];
  const token = process.env['AHP_TOKEN'];
  if (url === undefined || url === '' || token === undefined || token === '') {
    process.stderr.write('ahp-mcp: set AHP_URL (e.g. ws://localhost:8080/v1/agents) and AHP_TOKEN (an agent token)\n');
    process.exit(2);
  }
  const { values } = parseArgs({ options: { http: { type: 'boolean' }, port: { type: 'string' }, host: { type: 'string' } }, strict: true });
  const port = Number(values.port ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    process.stderr.write(`ahp-mcp: --port must be a port number, not ${String(values.port)}\n`);
    process.exit(2);
  }
  const client = await connect({ url: url.split(',').map((u) => u.trim()), token, client: { name: 'ahp-mcp', version: '0.1.0' } });
  if (values.http === true) {
    const http = await serveAhpMcpHttp({ client, token, port, ...(values.host === undefined ? {} : { host: values.host }) });
    // One JSON line saying where it listens (for people and for supervisors that read it).
    process.stderr.write(`${JSON.stringify({ ready: true, url: http.url })}\n`);
    const stopHttp = async (): Promise<void> => {
      await http.close();
      await client.close();
      process.exit(0);
    };
    process.once('SIGINT', () => void stopHttp());
    process.once('SIGTERM', () => void stopHttp());
    return;
  }
  const server = createAhpMcpServer({ client });
  const transport = new StdioServerTransport();
  const stop = async (): Promise<void> => {
    await server.close();
    await client.close();
    process.exit(0);
  };
  transport.onclose = () => void stop();
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await server.connect(transport);
}

main().catch((error: unknown) => {
  process.stderr.write(`ahp-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
