// Starts: a private Redis, two gateway processes with the MCP gateway enabled (AHP_MCP_CONFIG_FILE),
// one oracle-worker process, and an upstream MCP server fixture (e2e/fixtures/mcp-fixture-server.mjs,
// official MCP SDK, Streamable HTTP) that records every tools/call it receives; the gateways also
// launch the same fixture over stdio. The MCP client is the official SDK's Client over Streamable
// HTTP, its requests spread round-robin over both gateways (as a load balancer would), authenticated
// with an AHP agent token and governed by nothing but the gateway (no AHP SDK, no hooks).
//
// Proves: denied tools are absent from tools/list and refused if called anyway; a blocked call never
// reaches the upstream; a controlled call reaches it with the rewritten arguments; a call requiring
// approval waits, then completes after an operator approves through the operator API (on the other
// gateway), and fails distinctly when rejected or expired; secrets in a result are redacted before
// the client sees them and aid signals are attached; an upstream that hangs hits the tool's timeout
// and fails closed; a stdio upstream is governed the same way; a gateway killed mid-call leaves the
// client an error it can retry on the other gateway, which then succeeds; with no worker left, a
// call fails closed by default and a tool configured fail_open goes through (still redacted).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ProtocolStateSchema, type ProtocolState } from '@ahp/protocol';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, publishThroughStore } from './config-support.js';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/mcp-fixture-server.mjs', import.meta.url));
const SECRETS = { aws: 'AKIAIOSFODNN7EXAMPLE', internal: 'INTERNAL-7f3a9c' };

const HOOKS = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: mcp-rules
        use: rules
        rules:
          - id: no-destructive-sql
            condition: 'tool.name == "mcp__fixture__echo" and tool.input.text matches /DROP TABLE/'
            intensity: block
            message: "destructive SQL is not allowed through {{ mcp.server }}"
            resolution_path: ["ask a DBA to run the migration"]
          - id: sandbox-writes
            condition: 'tool.name == "mcp__fixture__write_file" and tool.input.path matches /^\\/etc\\//'
            intensity: control
            action: { type: set, target: path, value: "/sandbox/out.txt" }
            message: "writes outside the sandbox go to /sandbox"
          - id: deploy-prod
            condition: 'tool.name == "mcp__fixture__deploy" and tool.input.service == "prod"'
            require_approval: { deadline: 5m, message: "deploying {{ tool.input.service }} needs an operator" }
          - id: deploy-staging
            condition: 'tool.name == "mcp__fixture__deploy" and tool.input.service == "staging"'
            require_approval: { deadline: 2s }
  post-tool-use:
    oracles:
      - name: result-notes
        use: rules
        rules:
          - id: echo-note
            condition: 'tool.name == "mcp__fixture__echo"'
            intensity: aid
            message: "echo results are test data, not facts"
`;

interface RecordedCall {
  tool: string;
  arguments: Record<string, unknown>;
}

async function recorded(file: string): Promise<RecordedCall[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as RecordedCall);
}

function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
}

function decisionMeta(result: CallToolResult): Record<string, unknown> {
  return (result._meta?.['ahp/decision'] ?? {}) as Record<string, unknown>;
}

describe('the MCP gateway', () => {
  let system: System;
  let operators: OperatorTokens;
  let fixture: ChildProcess;
  let httpRecord: string;
  let stdioRecord: string;
  let gatewayBases: string[];
  let dir: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    operators = await writeOperatorTokens([{ id: 'op-maria', name: 'Maria', role: 'approver' }]);
    dir = await mkdtemp(join(tmpdir(), 'ahp-e2e-mcp-'));
    httpRecord = join(dir, 'http-calls.jsonl');
    stdioRecord = join(dir, 'stdio-calls.jsonl');
    fixture = spawn(process.execPath, [FIXTURE, '--record', httpRecord, '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      fixture.once('exit', (code) => reject(new Error(`the fixture exited with ${String(code)}`)));
      createInterface({ input: fixture.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    });
    const mcpConfig = join(dir, 'mcp.json');
    await writeFile(
      mcpConfig,
      JSON.stringify({
        version: 1,
        servers: [
          {
            id: 'fixture',
            upstream: { url: `http://127.0.0.1:${port}/mcp` },
            timeout_ms: 10_000,
            tools: { deny: ['delete_*', 'exit', { tools: ['slow', 'hang'], teams: ['interns'] }], settings: { hang: { timeout_ms: 1000 }, read_config: { failure_policy: 'fail_open' } } },
            redact: { patterns: ['INTERNAL-[0-9a-f]+'] },
          },
          { id: 'local', upstream: { command: process.execPath, args: [FIXTURE, '--stdio', '--record', stdioRecord] }, tools: { allow: ['echo', 'read_config'] } },
        ],
      }),
    );
    system = await startSystem({
      name: 'mcp-gateway',
      gateways: 2,
      workers: 1,
      agents: [
        { id: 'mcp-agent', name: 'MCP agent' },
        { id: 'intern', name: 'Intern', team: 'interns' },
      ],
      // A short hook deadline so the no-worker test below reaches the failure policy quickly.
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file, AHP_MCP_CONFIG_FILE: mcpConfig, AHP_REQUEST_SWEEP_MS: '200', AHP_HOOK_DEADLINE_MS: '4000' },
    });
    gatewayBases = system.stack.gateways.map((gateway) => `http://127.0.0.1:${String(gateway.ready['port'])}`);
    await allWorkersServe(system, await publishThroughStore(system, HOOKS));
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    fixture?.kill('SIGTERM');
    await system?.stop();
    await operators?.remove();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /**
   * An MCP client of `server` whose requests go round-robin over `bases` (a load balancer): the
   * initialize, the notification and every call may each land on another gateway.
   */
  async function mcpClient(server: string, bases: readonly string[] = gatewayBases, token = system.token('mcp-agent')): Promise<Client> {
    let next = 0;
    const balanced: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const base = new URL(bases[next++ % bases.length]!);
      url.host = base.host;
      return fetch(url, init);
    };
    const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${bases[0]!}/v1/mcp/${server}`), { fetch: balanced, requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    return client;
  }

  const maria = () => operators.token('op-maria');

  async function decide(gateway: number, requestId: string, body: Record<string, unknown>): Promise<void> {
    const { status, json } = await operatorCall(operatorApi(system.stack.gateways[gateway]!), maria(), 'POST', `/requests/${requestId}/decision`, body);
    expect(status, JSON.stringify(json)).toBe(200);
  }

  async function request(requestId: string): Promise<ProtocolState> {
    const { status, json } = await operatorCall(operatorApi(system.stack.gateways[0]!), maria(), 'GET', `/requests/${requestId}`);
    expect(status).toBe(200);
    return ProtocolStateSchema.parse((json as { request: unknown }).request);
  }

  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  it('refuses a client without a valid agent token before reading its body', async () => {
    const response = await fetch(`${gatewayBases[0]!}/v1/mcp/fixture`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer not-a-token' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('refuses hostile requests before any of them is served: unknown server, GET, compression, size, nesting, big batches', async () => {
    const token = system.token('mcp-agent');
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const post = (path: string, body: string, extra: Record<string, string> = {}) => fetch(`${gatewayBases[0]!}/v1/mcp/${path}`, { method: 'POST', headers: { ...headers, ...extra }, body });

    expect((await post('nope', JSON.stringify(list))).status).toBe(404);
    expect((await fetch(`${gatewayBases[0]!}/v1/mcp/fixture`, { headers })).status).toBe(405);
    expect((await post('fixture', JSON.stringify(list), { 'content-encoding': 'gzip' })).status).toBe(415);
    expect((await post('fixture', JSON.stringify({ ...list, params: { pad: 'x'.repeat(1_100_000) } }))).status).toBe(413);
    expect((await post('fixture', `${'['.repeat(200)}${']'.repeat(200)}`)).status).toBe(400);
    const batch = Array.from({ length: 17 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { text: `batch ${i}` } } }));
    const refused = await post('fixture', JSON.stringify(batch));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { message: 'a batch holds 1 to 16 messages' } });
    expect((await recorded(httpRecord)).some((c) => String(c.arguments['text']).startsWith('batch'))).toBe(false);
    // The same kind of request, well-formed, is served.
    expect((await post('fixture', JSON.stringify(list))).status).toBe(200);
  });

  it('lists only the tools agents may see', async () => {
    const client = await mcpClient('fixture');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual(['big', 'deploy', 'echo', 'hang', 'read_config', 'slow', 'write_file']);
    expect(names).not.toContain('delete_everything');

    // Called anyway (a client that guessed the name): refused, and the upstream never sees it.
    const result = await call(client, 'delete_everything');
    expect(result.isError).toBe(true);
    expect(decisionMeta(result)).toMatchObject({ outcome: 'not_available' });
    expect((await recorded(httpRecord)).map((c) => c.tool)).not.toContain('delete_everything');

    // A deny entry scoped to a team hides the tools from that team's agents only (the token's team).
    const intern = await mcpClient('fixture', gatewayBases, system.token('intern'));
    expect((await intern.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['big', 'deploy', 'echo', 'read_config', 'write_file']);
    expect(decisionMeta(await call(intern, 'slow', { ms: 1 }))).toMatchObject({ outcome: 'not_available' });
  });

  it('allows a call, attaches the aid signal of post-tool-use, and records the call upstream', async () => {
    const client = await mcpClient('fixture');
    const result = await call(client, 'echo', { text: 'hello' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('"text":"hello"');
    expect(textOf(result)).toContain('AHP: echo results are test data, not facts');
    expect(decisionMeta(result)).toMatchObject({ outcome: 'allowed', trigger: 'pre-tool-use', post: { signal_types: expect.any(Array) } });
    expect(await recorded(httpRecord)).toContainEqual(expect.objectContaining({ tool: 'echo', arguments: { text: 'hello' } }));
  });

  it('blocks a call by rule with its reason and resolution; the upstream never receives it', async () => {
    const client = await mcpClient('fixture');
    const result = await call(client, 'echo', { text: 'DROP TABLE users' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('destructive SQL is not allowed through fixture');
    expect(textOf(result)).toContain('ask a DBA to run the migration');
    expect(decisionMeta(result)).toMatchObject({ outcome: 'blocked', intensity: 'block', decided_by: 'oracles' });
    expect((await recorded(httpRecord)).some((c) => c.tool === 'echo' && String(c.arguments['text']).includes('DROP TABLE'))).toBe(false);
    // In the signal log like any agent's block: the same hook id, agent, trigger and rule.
    const hookId = decisionMeta(result)['hook_id'];
    const line = await eventually(async () => {
      const { json } = await operatorCall(operatorApi(system.stack.gateways[1]!), maria(), 'GET', '/signals?agent=mcp-agent&intensity=block');
      return (json as { lines: { correlation_id: string; hook?: string; rule?: string; session_id?: string }[] }).lines.find((entry) => entry.correlation_id === hookId);
    }, 'the block in the signal log');
    expect(line).toMatchObject({ hook: 'pre-tool-use', rule: expect.stringContaining('no-destructive-sql'), session_id: expect.stringMatching(/^mcp-/) });
  });

  it('forwards a controlled call with the rewritten arguments', async () => {
    const client = await mcpClient('fixture');
    const result = await call(client, 'write_file', { path: '/etc/passwd', content: 'x' });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('to /sandbox/out.txt');
    expect(textOf(result)).toContain('AHP adjusted this call');
    const writes = (await recorded(httpRecord)).filter((c) => c.tool === 'write_file');
    expect(writes).toEqual([expect.objectContaining({ arguments: { path: '/sandbox/out.txt', content: 'x' } })]);
  });

  it('redacts secrets (built-in and configured patterns) from a result before the client sees it', async () => {
    const client = await mcpClient('fixture');
    const result = await call(client, 'read_config');
    const text = textOf(result);
    expect(text).toContain('region=eu-west-1');
    expect(text).not.toContain(SECRETS.aws);
    expect(text).not.toContain(SECRETS.internal);
    expect(text).toContain('[redacted]');
  });

  it('holds a call for approval, then lets the identical retry through once an operator approves it', async () => {
    const client = await mcpClient('fixture');
    const first = await call(client, 'deploy', { service: 'prod' });
    expect(first.isError).toBe(true);
    const meta = decisionMeta(first);
    expect(meta).toMatchObject({ outcome: 'awaiting_approval', approval: { status: 'pending' } });
    const requestId = (meta['approval'] as { request_id: string }).request_id;
    expect(textOf(first)).toContain(`request ${requestId}`);
    expect(textOf(first)).toContain('retry exactly the same call');
    expect(await request(requestId)).toMatchObject({ status: 'pending', type: 'tool_approval', sender: 'mcp-agent', payload: { tool: 'mcp__fixture__deploy', input: { service: 'prod' } } });
    expect((await recorded(httpRecord)).filter((c) => c.tool === 'deploy')).toEqual([]);

    // Still pending: the retry waits again. Another call (other arguments) is not covered by it.
    expect(decisionMeta(await call(client, 'deploy', { service: 'prod' }))).toMatchObject({ outcome: 'awaiting_approval', approval: { request_id: requestId } });

    await decide(1, requestId, { approve: true, feedback: 'go' });
    const retried = await call(client, 'deploy', { service: 'prod' });
    expect(retried.isError).toBeFalsy();
    expect(textOf(retried)).toContain('deployed prod');
    expect(decisionMeta(retried)).toMatchObject({ outcome: 'allowed', signal_types: expect.arrayContaining(['approval-approved']) });
    expect((await recorded(httpRecord)).filter((c) => c.tool === 'deploy')).toEqual([expect.objectContaining({ arguments: { service: 'prod' } })]);

    // Used once: the next identical call asks again.
    expect(decisionMeta(await call(client, 'deploy', { service: 'prod' }))).toMatchObject({ outcome: 'awaiting_approval' });
  });

  it('fails distinctly when the approval is rejected', async () => {
    const client = await mcpClient('fixture', gatewayBases, system.token('mcp-agent'));
    const first = await call(client, 'deploy', { service: 'prod', version: 'v2' });
    const requestId = (decisionMeta(first)['approval'] as { request_id: string }).request_id;
    await decide(0, requestId, { approve: false, feedback: 'not on a Friday' });
    const retried = await call(client, 'deploy', { service: 'prod', version: 'v2' });
    expect(retried.isError).toBe(true);
    expect(textOf(retried)).toContain('not on a Friday');
    expect(decisionMeta(retried)).toMatchObject({ outcome: 'approval_rejected', signal_types: expect.arrayContaining(['approval-rejected']) });
    expect((await recorded(httpRecord)).some((c) => c.tool === 'deploy' && c.arguments['version'] === 'v2')).toBe(false);
  });

  it('fails distinctly when the approval expires', async () => {
    const client = await mcpClient('fixture');
    const first = await call(client, 'deploy', { service: 'staging' });
    const requestId = (decisionMeta(first)['approval'] as { request_id: string }).request_id;
    await eventually(async () => ((await request(requestId)).status === 'expired' ? true : undefined), 'the approval request to expire');
    const retried = await call(client, 'deploy', { service: 'staging' });
    expect(retried.isError).toBe(true);
    expect(decisionMeta(retried)).toMatchObject({ outcome: 'approval_expired', signal_types: expect.arrayContaining(['approval-expired']) });
    expect((await recorded(httpRecord)).some((c) => c.tool === 'deploy' && c.arguments['service'] === 'staging')).toBe(false);
  });

  it('fails closed when the upstream hangs past the tool timeout', async () => {
    const client = await mcpClient('fixture');
    const result = await call(client, 'hang');
    expect(result.isError).toBe(true);
    expect(decisionMeta(result)).toMatchObject({ outcome: 'upstream_timeout' });
    expect(textOf(result)).toContain('did not answer within 1000 ms');
  });

  it('governs a stdio upstream the gateways launch, with its own allow list and redaction', async () => {
    const client = await mcpClient('local');
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'read_config']);
    const result = await call(client, 'read_config');
    expect(textOf(result)).not.toContain(SECRETS.aws);
    expect((await call(client, 'deploy', { service: 'prod' })).isError).toBe(true);
    expect((await recorded(stdioRecord)).map((c) => c.tool)).toEqual(['read_config']);
  });

  it('a gateway killed mid-call: the client gets an error, and the same call retried on the other gateway completes', async () => {
    const [a, b] = gatewayBases;
    const onA = await mcpClient('fixture', [a!]);
    const onB = await mcpClient('fixture', [b!]);
    const inFlight = call(onA, 'slow', { ms: 1500 }).then(
      (result) => ({ ok: true as const, result }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    await eventually(async () => ((await recorded(httpRecord)).some((c) => c.tool === 'slow') ? true : undefined), 'the slow call to reach the upstream');
    system.stack.gateways[0]!.kill('SIGKILL');
    const outcome = await inFlight;
    expect(outcome.ok).toBe(false);
    const retried = await call(onB, 'slow', { ms: 10 });
    expect(retried.isError).toBeFalsy();
    expect(textOf(retried)).toContain('slept 10 ms');
  });
  it('with no worker to decide, a call fails closed by default and a tool set to fail_open goes through', async () => {
    await system.stack.workers[0]!.stop();
    const client = await mcpClient('fixture', [gatewayBases[1]!]);
    const before = (await recorded(httpRecord)).length;
    const closed = await call(client, 'echo', { text: 'nobody decides' });
    expect(closed.isError).toBe(true);
    expect(decisionMeta(closed)).toMatchObject({ outcome: 'failure_policy', decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } });
    expect((await recorded(httpRecord)).slice(before).map((c) => c.tool)).toEqual([]);

    // read_config is configured fail_open: let through undecided, and still redacted.
    const open = await call(client, 'read_config');
    expect(open.isError).toBeFalsy();
    expect(textOf(open)).not.toContain(SECRETS.aws);
    expect((await recorded(httpRecord)).slice(before).map((c) => c.tool)).toEqual(['read_config']);
  });
});
