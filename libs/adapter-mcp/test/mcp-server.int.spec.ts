// Starts: a private Redis, a gateway process and an oracle-worker process (tools/adapter-harness),
// with rules that block `shell rm -rf /…`, rewrite `deploy` to production into staging, and hand
// `refund` to an operator. The AHP MCP server runs for real — in this process over the MCP SDK's
// in-memory transport, and as the built `ahp-mcp` command over stdio — and an MCP client plays a
// scripted agent: it asks before each of its own tools, runs them only when allowed, and waits
// for the operator, who decides through the gateway's operator API.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Plan } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { ADAPTER_TEST_HOOKS, eventually, startAdapterStack, type AdapterStack } from '@ahp/adapter-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { createAhpMcpServer } from '../src/index.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

type Verdict = { verdict: 'allow'; input: Record<string, unknown>; notes: string[] } | { verdict: 'block'; message: string } | { verdict: 'await_approval'; request_id: string; message: string };

/** The JSON answer of a tool of the AHP MCP server. */
async function call<T>(mcp: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await mcp.callTool({ name, arguments: args });
  const [first] = result.content as { type: string; text: string }[];
  if (result.isError === true) throw new Error(first?.text ?? 'tool error');
  return JSON.parse(first?.text ?? 'null') as T;
}

/**
 * A scripted agent with three local tools that asks AHP (through MCP) before each call, runs a
 * tool only when allowed (with the returned input), reports the result, and waits for an
 * operator when told to. Returns what the model would have seen for each call.
 */
async function scriptedAgent(mcp: Client, calls: readonly { tool: string; input: Record<string, unknown> }[], ran: { tool: string; input: unknown }[], onWaiting?: (requestId: string) => void): Promise<string[]> {
  const seen: string[] = [];
  for (const planned of calls) {
    let verdict = await call<Verdict>(mcp, 'ahp_check_tool_call', planned);
    while (verdict.verdict === 'await_approval') {
      onWaiting?.(verdict.request_id);
      verdict = await call<Verdict>(mcp, 'ahp_await_approval', { request_id: verdict.request_id, wait_seconds: 10 });
    }
    if (verdict.verdict === 'block') {
      seen.push(verdict.message);
      continue;
    }
    ran.push({ tool: planned.tool, input: verdict.input });
    const output = `ran ${planned.tool} ${JSON.stringify(verdict.input)}`;
    await call(mcp, 'ahp_report_tool_result', { tool: planned.tool, input: verdict.input, ok: true, output });
    seen.push([output, ...verdict.notes].join('\n'));
  }
  return seen;
}

describe('the AHP MCP server', () => {
  let stack: AdapterStack;
  let client: AhpClient;
  let mcp: Client;

  beforeAll(async () => {
    stack = await startAdapterStack({ name: 'mcp', redisUrl: inject('redisUrl'), hooksConfig: ADAPTER_TEST_HOOKS, agents: [{ id: 'agent-1', name: 'Agent 1', team: 'billing' }, { id: 'agent-2', name: 'Agent 2', team: 'billing' }] });
    client = await connect({ url: stack.agentUrl, token: stack.token('agent-1') });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createAhpMcpServer({ client }).connect(serverSide);
    mcp = new Client({ name: 'scripted-agent', version: '1.0.0' });
    await mcp.connect(clientSide);
  });

  afterAll(async () => {
    await mcp?.close();
    await client?.close();
    await stack?.stop();
  });

  it('lists its tools with input schemas', async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['ahp_await_approval', 'ahp_await_plan', 'ahp_check_tool_call', 'ahp_read_inbox', 'ahp_report_tool_result', 'ahp_submit_plan']);
    expect(tools.find((t) => t.name === 'ahp_check_tool_call')?.inputSchema.required).toEqual(['tool', 'input']);
  });

  it('a blocked call never executes; a rewritten call executes with the new input', async () => {
    const ran: { tool: string; input: unknown }[] = [];
    const seen = await scriptedAgent(
      mcp,
      [
        { tool: 'shell', input: { command: 'rm -rf /var' } },
        { tool: 'deploy', input: { service: 'api', env: 'production' } },
        { tool: 'shell', input: { command: 'ls' } },
      ],
      ran,
    );
    expect(ran).toEqual([
      { tool: 'deploy', input: { service: 'api', env: 'staging' } },
      { tool: 'shell', input: { command: 'ls' } },
    ]);
    expect(seen[0]).toContain('BLOCKED by adapter-rules: deleting from the root is never allowed');
    expect(seen[1]).toContain('NOTE: input changed by the control plane: env → "staging"');
  });

  it('an approval waits for the operator and then runs with their changes; a rejection never runs', async () => {
    const ran: { tool: string; input: unknown }[] = [];
    const decided = new Set<string>();
    const running = scriptedAgent(
      mcp,
      [
        { tool: 'refund', input: { order: 'A-17', amount: 900 } },
        { tool: 'refund', input: { order: 'B-2', amount: 5000 } },
      ],
      ran,
      (requestId) => {
        if (decided.has(requestId)) return;
        decided.add(requestId);
        // The operator decides while the agent waits in ahp_await_approval.
        void stack.request(requestId).then((request) => {
          const order = (request.payload as { input: { order: string } }).input.order;
          return order === 'A-17'
            ? stack.decide(requestId, { approve: true, modified_input: { order: 'A-17', amount: 450 } })
            : stack.decide(requestId, { approve: false, feedback: 'not without a ticket' });
        });
      },
    );
    const seen = await running;
    expect(ran).toEqual([{ tool: 'refund', input: { order: 'A-17', amount: 450 } }]);
    expect(seen[1]).toContain('not without a ticket');
    expect(decided.size).toBe(2);
  });

  it('submits a plan and gets the operators\u2019 decision', async () => {
    const plan: Plan = {
      title: 'Rotate the API keys',
      steps: [{ id: 's1', description: 'Rotate the keys', dependencies: [], status: 'pending', tools_expected: ['shell'] }],
    };
    const submitted = await call<{ status: string; request_id: string }>(mcp, 'ahp_submit_plan', { plan, approver: 'operators', wait_seconds: 0 });
    expect(submitted.status).toBe('pending');
    await eventually(async () => ((await stack.request(submitted.request_id).catch(() => undefined))?.status === 'pending' ? true : undefined), 'the plan request');
    await stack.decide(submitted.request_id, { approve: true, feedback: 'go' });
    const decided = await call<{ status: string; approved: boolean; feedback?: string }>(mcp, 'ahp_await_plan', { request_id: submitted.request_id, wait_seconds: 10 });
    expect(decided).toMatchObject({ status: 'approved', approved: true, feedback: 'go' });
  });

  it('refuses input that does not fit its schemas, without asking AHP', async () => {
    const result = await mcp.callTool({ name: 'ahp_check_tool_call', arguments: { tool: '', input: 'rm -rf /' } });
    expect(result.isError).toBe(true);
  });

  it('the ahp-mcp command serves the same tools over stdio, and reads the inbox a teammate filled', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: { PATH: process.env['PATH'] ?? '', AHP_URL: stack.agentUrl, AHP_TOKEN: stack.token('agent-2') },
      stderr: 'pipe',
    });
    const overStdio = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await overStdio.connect(transport);
    try {
      const blocked = await call<Verdict>(overStdio, 'ahp_check_tool_call', { tool: 'shell', input: { command: 'rm -rf /etc' } });
      expect(blocked.verdict).toBe('block');
      await client.send('agent-2', 'the refunds are done; please check the ledger');
      const inbox = await call<{ shutdown: boolean; messages: { from: string; content: string }[] }>(overStdio, 'ahp_read_inbox', { wait_seconds: 10 });
      expect(inbox.shutdown).toBe(false);
      expect(inbox.messages).toMatchObject([{ from: 'agent-1', content: 'the refunds are done; please check the ledger' }]);
      // Read once: the message was acknowledged.
      expect((await call<{ messages: unknown[] }>(overStdio, 'ahp_read_inbox', {})).messages).toEqual([]);
    } finally {
      await overStdio.close();
    }
  });

  it('ahp-mcp --http serves the tools over Streamable HTTP to callers with the agent token only', async () => {
    const token = stack.token('agent-2');
    const child = spawn(process.execPath, [CLI, '--http'], { env: { PATH: process.env['PATH'] ?? '', AHP_URL: stack.agentUrl, AHP_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const lines = createInterface({ input: child.stderr });
      const url = await new Promise<string>((resolve, reject) => {
        lines.on('line', (line) => {
          const ready = JSON.parse(line) as { ready?: boolean; url?: string };
          if (ready.ready === true && ready.url !== undefined) resolve(ready.url);
        });
        child.once('exit', (code) => reject(new Error(`ahp-mcp exited with ${String(code)}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

      // Without the token, and with another agent's token: refused before MCP sees anything.
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      expect((await fetch(url, { method: 'POST', headers, body: JSON.stringify(initialize) })).status).toBe(401);
      expect((await fetch(url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${stack.token('agent-1')}` }, body: JSON.stringify(initialize) })).status).toBe(401);

      const overHttp = new Client({ name: 'http-agent', version: '1.0.0' });
      await overHttp.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        const rewritten = await call<Verdict>(overHttp, 'ahp_check_tool_call', { tool: 'deploy', input: { service: 'web', env: 'production' } });
        expect(rewritten).toMatchObject({ verdict: 'allow', input: { service: 'web', env: 'staging' } });
      } finally {
        await overHttp.close();
      }
    } finally {
      if (child.exitCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
