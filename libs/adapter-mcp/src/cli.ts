#!/usr/bin/env node
/**
 * `ahp-mcp`: the AHP MCP server over stdio, for MCP clients that start their servers as commands
 * (Claude Desktop, Cursor, Codex, the MCP inspector…). Configuration from the environment:
 * AHP_URL (the gateway's agent endpoint; several separated by commas) and AHP_TOKEN (the agent's
 * token). stdout carries the MCP protocol only: everything else goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { connect } from '@ahp/sdk';
import { createAhpMcpServer } from './server.js';

async function main(): Promise<void> {
  const url = process.env['AHP_URL'];
  const token = process.env['AHP_TOKEN'];
  if (url === undefined || url === '' || token === undefined || token === '') {
    process.stderr.write('ahp-mcp: set AHP_URL (e.g. ws://localhost:8080/v1/agents) and AHP_TOKEN (an agent token)\n');
    process.exit(2);
  }
  const client = await connect({ url: url.split(',').map((u) => u.trim()), token, client: { name: 'ahp-mcp', version: '0.1.0' } });
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
