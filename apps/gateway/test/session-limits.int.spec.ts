/**
 * The per-agent new-session limit (`AHP_AGENT_NEW_SESSIONS_PER_MIN` / `AHP_AGENT_NEW_SESSION_BURST`)
 * on every door that starts a session, on one real gateway (Nest app in this process, port 0, the
 * run's private Redis) with the MCP gateway enabled (the MCP fixture server over stdio), a hook
 * worker of the test's own (the store's BullMQ worker, allowing every hook), real `ws` clients,
 * `fetch` on the Codex hook route and the SDK's MCP client.
 *
 * Proves: Codex hooks naming new sessions, hook frames naming new sessions of a bridge, and MCP
 * calls with new `X-AHP-Session` labels spend the same bucket as `hello`; the one over it is
 * refused — the Codex hook with the dialect's fail-closed deny although `pre-tool-use` is
 * configured fail_open here, the hook frame with `E_RATE_LIMITED`, the MCP call with a JSON-RPC
 * error — and nothing is written for the refused session; a resumed session stays free; a
 * concurrent burst over the limit creates no more sessions than the bucket holds.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorFrame } from '@ahp/protocol';
import { createHookWorker, resolveHookQueueShardCount, type HookWorker } from '@ahp/store';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentSessionId } from '../src/coding-agents/hook-dialect.js';
import { mcpSessionId } from '../src/mcp/mcp-gateway.service.js';
import { connectAgent, connectReady, type AgentClient } from './support/agent-client.js';
import { postHook } from './support/coding-agent-hooks.js';
import { workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const BURST = 3;
const AGENTS: TestAgentEntry[] = ['codex', 'burst', 'bridge', 'mcp', 'other'].map((id) => ({ id, name: id, token: newToken() }));
const FIXTURE = fileURLToPath(new URL('../../../e2e/fixtures/mcp-fixture-server.mjs', import.meta.url));

let dir: string;
let gw: TestGateway;
let store: TestStore;
let worker: HookWorker;
const clients: AgentClient[] = [];
const mcpClients: Client[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-session-limits-'));
  const mcpConfig = join(dir, 'mcp.json');
  await writeFile(mcpConfig, JSON.stringify({ version: 1, servers: [{ id: 'local', upstream: { command: process.execPath, args: [FIXTURE, '--stdio', '--record', join(dir, 'calls.jsonl')] }, timeout_ms: 15_000 }] }));
  gw = await startTestGateway({
    name: 'session-limits',
    agents: AGENTS,
    env: {
      // One new session a minute after the burst: nothing refills during the test.
      AHP_AGENT_NEW_SESSIONS_PER_MIN: '1',
      AHP_AGENT_NEW_SESSION_BURST: String(BURST),
      // Open, so that a refusal that reads as the failure policy's would let the call run.
      AHP_FAILURE_POLICIES: JSON.stringify({ 'pre-tool-use': 'fail_open' }),
      AHP_MCP_CONFIG_FILE: mcpConfig,
    },
  });
  store = await openTestStore(gw.keyPrefix, testLogger());
  worker = createHookWorker({
    redis: store.redis,
    keys: store.keys,
    shards: await resolveHookQueueShardCount(store.redis, store.keys, undefined),
    logger: testLogger(),
    processor: async (job) => {
      await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger), Date.now());
    },
  });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await Promise.allSettled(mcpClients.map((client) => client.close()));
  await worker?.close();
  await store?.close();
  await gw?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Whether the session exists in Redis. */
async function exists(sessionId: string): Promise<boolean> {
  return (await store.redis.exists(store.keys.session(sessionId))) === 1;
}

/** Codex's PreToolUse of `session` (the agent's own session id), posted as `agentId`; its answer. */
async function codexPreToolUse(agentId: string, session: string): Promise<unknown> {
  const body = {
    session_id: session,
    turn_id: 't',
    transcript_path: null,
    cwd: '/repo',
    hook_event_name: 'PreToolUse',
    model: 'gpt-5-codex',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_use_id: `call_${randomUUID()}`,
  };
  const response = await postHook(gw, 'codex', body, `Bearer ${gw.agents[agentId]!.token}`);
  expect(response.status).toBe(200);
  return response.json();
}

/** A hello that would start a session: its reply (welcome or the refusal). */
async function newHello(agentId: string) {
  const client = await connectAgent(gw.wsUrl, { token: gw.agents[agentId]!.token });
  clients.push(client);
  return client.request({ type: 'hello', id: randomUUID(), protocol: 1, client: { name: 'gateway-int-spec', version: '0.0.0' } });
}

const RATE_LIMITED_DENY = {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse',
    permissionDecision: 'deny',
    permissionDecisionReason: expect.stringMatching(/^Blocked by AHP \(fail-closed\): this agent started too many new sessions.*\(E_RATE_LIMITED\)$/) as unknown,
  },
};

describe('coding agent hook routes', () => {
  it('count each new session: the one over the limit is denied closed and leaves nothing; a resumed one is free; hello shares the bucket', async () => {
    const sessions = Array.from({ length: BURST + 1 }, () => randomUUID());
    for (const session of sessions.slice(0, BURST)) expect(await codexPreToolUse('codex', session)).toEqual({});

    const over = sessions[BURST]!;
    expect(await codexPreToolUse('codex', over)).toEqual(RATE_LIMITED_DENY);
    expect(await exists(agentSessionId('cx', 'codex', over))).toBe(false);
    expect(await exists(agentSessionId('cx', 'codex', sessions[0]!))).toBe(true);

    // A session the agent has is resumed, not counted.
    expect(await codexPreToolUse('codex', sessions[0]!)).toEqual({});
    // The WebSocket door spends the same bucket: the hooks used it up.
    const hello = await newHello('codex');
    expect(hello.type).toBe('error');
    expect((hello as ErrorFrame).error).toMatchObject({ code: 'E_RATE_LIMITED', details: { subject: 'session' } });
    // Another agent's bucket is its own.
    expect(await codexPreToolUse('other', over)).toEqual({});
  });

  it('a concurrent burst of new sessions creates no more than the bucket holds', async () => {
    const sessions = Array.from({ length: BURST * 4 }, () => randomUUID());
    const answers = await Promise.all(sessions.map((session) => codexPreToolUse('burst', session)));
    const created = await Promise.all(sessions.map((session) => exists(agentSessionId('cx', 'burst', session))));
    expect(created.filter(Boolean)).toHaveLength(BURST);
    expect(answers.filter((answer) => JSON.stringify(answer) === '{}')).toHaveLength(BURST);
    for (const [i, answer] of answers.entries()) if (!created[i]) expect(answer).toEqual(RATE_LIMITED_DENY);
  });
});

describe('hook frames naming another session of the agent (a bridge)', () => {
  it('count each new session: the one over the limit is refused with E_RATE_LIMITED and not created', async () => {
    const { client } = await connectReady(gw.wsUrl, gw.agents['bridge']!.token);
    clients.push(client);
    // The hello took one; BURST - 1 more sessions are allowed.
    const extra = Array.from({ length: BURST }, () => `run-${randomUUID()}`);
    for (const session of extra.slice(0, BURST - 1)) expect((await client.hook('pre-tool-use', { session_id: session }).reply).type).toBe('decision');

    const over = extra[BURST - 1]!;
    const refused = await client.hook('pre-tool-use', { session_id: over }).reply;
    expect(refused.type).toBe('error');
    expect((refused as ErrorFrame).error).toMatchObject({ code: 'E_RATE_LIMITED', retryable: true, details: { subject: 'session' } });
    expect(await exists(over)).toBe(false);
    // The connection's own session and the extra ones it has are not counted again.
    expect((await client.hook('pre-tool-use').reply).type).toBe('decision');
    expect((await client.hook('pre-tool-use', { session_id: extra[0] }).reply).type).toBe('decision');
  });
});

describe('the MCP gateway', () => {
  async function mcpClient(label: string): Promise<Client> {
    const client = new Client({ name: 'int-session-limits', version: '1.0.0' });
    const headers = { authorization: `Bearer ${gw.agents['mcp']!.token}`, 'x-ahp-session': label };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.httpUrl}/v1/mcp/local`), { requestInit: { headers } }));
    mcpClients.push(client);
    return client;
  }

  const echo = (client: Client) => client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, { timeout: 30_000 }) as Promise<CallToolResult>;

  it('counts each new X-AHP-Session label: the call over the limit gets a JSON-RPC error and no session', async () => {
    const labels = Array.from({ length: BURST + 1 }, (_, i) => `label-${i}`);
    const within = await Promise.all(labels.slice(0, BURST).map(mcpClient));
    for (const client of within) {
      const result = await echo(client);
      expect(result.isError, JSON.stringify(result)).not.toBe(true);
    }

    const over = await mcpClient(labels[BURST]!);
    const refusal = await echo(over).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(McpError);
    expect(refusal).toMatchObject({ code: -32000, data: { ahp: { code: 'E_RATE_LIMITED' } } });
    expect((refusal as McpError).message).toContain('too many new sessions');
    expect(await exists(mcpSessionId('mcp', labels[BURST]!))).toBe(false);
    // A label whose session exists is resumed, not counted.
    expect((await echo(within[0]!)).isError).not.toBe(true);
  });
});
