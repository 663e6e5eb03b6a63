/**
 * MCP call overhead: one `tools/call` at a time from an MCP client (the official SDK's, Streamable
 * HTTP) to an upstream MCP server fixture (the SDK's, stateless Streamable HTTP, one `echo` tool),
 * directly and through the gateway's MCP endpoint (`/v1/mcp/bench`, docs/mcp-gateway.md), in the
 * same run and alternating call by call so both see the same machine. Through the gateway each
 * call is a `pre-tool-use` hook, the forwarded call, redaction and a `post-tool-use` hook: two
 * decisions of the product's workers plus one upstream round trip.
 *
 * Measured in this process (the clients and the fixture both live here, as the load generator's
 * targets would): the figure includes the client's own JSON-RPC work on both paths alike.
 */
import { writeFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { count, ms } from '../report/format.js';
import type { PhaseContext, Phase } from '../orchestrator/context.js';
import { ProductStack } from '../orchestrator/product-stack.js';
import { summarize } from '../stats/latency.js';
import type { Measured } from '../results.js';

/** The fixture: an MCP server over stateless Streamable HTTP with one `echo` tool. */
async function startFixture(): Promise<{ url: string; close: () => Promise<void> }> {
  const http: HttpServer = createServer((req, res) => {
    const server = new Server({ name: 'bench-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
    server.setRequestHandler(CallToolRequestSchema, (request) => ({ content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? {}) }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

async function connectClient(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'ahp-bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), token === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

/** Times `calls` echo calls on each client, alternating; errors (tool errors included) are counted, not timed. */
async function alternate(clients: readonly Client[], calls: number): Promise<Measured[]> {
  const samples = clients.map(() => [] as number[]);
  const errors = clients.map(() => 0);
  for (let i = 0; i < calls; i++) {
    for (const [index, client] of clients.entries()) {
      const started = performance.now();
      try {
        const result = await client.callTool({ name: 'echo', arguments: { text: 'bench', i } });
        if (result.isError === true) errors[index] = (errors[index] ?? 0) + 1;
        else samples[index]?.push(performance.now() - started);
      } catch {
        errors[index] = (errors[index] ?? 0) + 1;
      }
    }
  }
  return clients.map((_, index): Measured => {
    const failed = errors[index] ?? 0;
    const errorCodes: Record<string, number> = failed > 0 ? { tool_error: failed } : {};
    return { latency: summarize(samples[index] ?? []), errors: failed, errorCodes };
  });
}

export const mcp: Phase = {
  key: 'mcp',
  name: 'MCP gateway overhead',
  resultPath: 'product.mcp',
  describe: (plan) => `${count(plan.mcpCalls)} MCP tools/call one at a time, alternating: client → fixture directly, and client → gateway (/v1/mcp) → fixture`,
  async run(ctx: PhaseContext) {
    await ctx.releaseProduct();
    const fixture = await startFixture();
    const configFile = join(ctx.runDir, 'mcp-gateway.json');
    await writeFile(configFile, JSON.stringify({ version: 1, servers: [{ id: 'bench', upstream: { url: fixture.url } }] }));
    const stack = await ProductStack.start(ctx, { name: 'mcp', gateways: 1, workers: ctx.plan.mcpWorkers, gatewayEnv: { AHP_MCP_CONFIG_FILE: configFile } });
    const clients: Client[] = [];
    try {
      const gateway = stack.stack.gateways[0];
      const login = ctx.logins[0];
      if (gateway === undefined || login === undefined) throw new Error('the MCP phase needs a gateway and an agent');
      clients.push(await connectClient(fixture.url), await connectClient(`http://127.0.0.1:${String(gateway.ready['port'])}/v1/mcp/bench`, login.token));
      await alternate(clients, Math.min(50, Math.max(5, Math.round(ctx.plan.mcpCalls / 10))));
      const [direct, gatewayed] = await alternate(clients, ctx.plan.mcpCalls);
      if (direct === undefined || gatewayed === undefined) throw new Error('no figures');
      const overhead = { p50: gatewayed.latency.p50 - direct.latency.p50, p99: gatewayed.latency.p99 - direct.latency.p99 };
      ctx.results.product.mcp = { direct, gateway: gatewayed, overheadMs: overhead };
      const errors = gatewayed.errors + direct.errors > 0 ? `; errors: direct ${direct.errors}, gateway ${gatewayed.errors}` : '';
      return (
        `direct p50 ${ms(direct.latency.p50)} p99 ${ms(direct.latency.p99)}; through the gateway p50 ${ms(gatewayed.latency.p50)} p99 ${ms(gatewayed.latency.p99)}; ` +
        `overhead p50 ${ms(overhead.p50)} p99 ${ms(overhead.p99)}${errors}`
      );
    } finally {
      await Promise.allSettled(clients.map((client) => client.close()));
      await stack.stop();
      await fixture.close();
    }
  },
};
