// Starts: a gateway in-process with the MCP gateway enabled (AHP_MCP_CONFIG_FILE) on the run's
// private Redis, a hook worker of the test's own (the store's BullMQ worker, deciding every hook
// "allow" and keeping what it was asked), the MCP fixture server (e2e/fixtures/mcp-fixture-server.mjs,
// the official SDK's low-level Server) launched by the gateway over stdio under two server ids
// (one fail_closed, one fail_open), and agents as the SDK's MCP Client over Streamable HTTP.
//
// Proves: an agent's call of a tool the upstream does not have comes back to it as a tool error
// and leaves another agent's call in flight on the same upstream process untouched (an error
// answering tools/list too, redacted); one agent
// cannot have more calls in flight on a server than its cap, while another agent still can; a
// result too large for the post-tool-use rules to see in full is withheld fail-closed (no hook
// recorded for it) and let through, marked partly inspected, where the tool is fail_open; a
// resource link reaches the model redacted, without the upstream's _meta, and the rules see its fields.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIMITS, type HookJobData } from '@ahp/protocol';
import { createHookWorker, resolveHookQueueShardCount, type HookWorker } from '@ahp/store';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { workerDecision } from './support/decisions.js';
import { openTestStore, startTestGateway, testLogger, type TestGateway, type TestStore } from './support/test-gateway.js';

/** The most text of a result the post-tool-use rules see (the hook context's limit of a tool text string). */
const LIMIT = LIMITS.maxLongText;
/** The fixture's FIXTURE_SECRETS (importing the fixture would start it). */
const FIXTURE_SECRETS = { aws: 'AKIAIOSFODNN7EXAMPLE', internal: 'INTERNAL-7f3a9c' };
const FIXTURE = fileURLToPath(new URL('../../../e2e/fixtures/mcp-fixture-server.mjs', import.meta.url));

function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
}

function decisionMeta(result: CallToolResult): Record<string, unknown> {
  return (result._meta?.['ahp/decision'] ?? {}) as Record<string, unknown>;
}

function pidOf(result: CallToolResult): string {
  const pid = /\(pid (\d+)\)/.exec(textOf(result))?.[1];
  if (pid === undefined) throw new Error(`no pid in ${textOf(result)}`);
  return pid;
}

describe('the MCP gateway and its shared upstreams', () => {
  let dir: string;
  let record: string;
  let gateway: TestGateway;
  let store: TestStore;
  let worker: HookWorker;
  const jobs: HookJobData[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ahp-mcp-gateway-'));
    record = join(dir, 'calls.jsonl');
    const mcpConfig = join(dir, 'mcp.json');
    const upstream = { command: process.execPath, args: [FIXTURE, '--stdio', '--record', record] };
    await writeFile(
      mcpConfig,
      JSON.stringify({
        version: 1,
        servers: [
          { id: 'local', upstream, timeout_ms: 15_000, max_concurrent_calls_per_agent: 2 },
          { id: 'lenient', upstream, timeout_ms: 15_000, failure_policy: 'fail_open' },
        ],
      }),
    );
    gateway = await startTestGateway({ name: 'mcp-gateway', env: { AHP_MCP_CONFIG_FILE: mcpConfig } });
    store = await openTestStore(gateway.keyPrefix, testLogger());
    worker = createHookWorker({
      redis: store.redis,
      keys: store.keys,
      shards: await resolveHookQueueShardCount(store.redis, store.keys, undefined),
      logger: testLogger(),
      processor: async (job) => {
        jobs.push(job);
        await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger), Date.now());
      },
    });
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await worker?.close();
    await store?.close();
    await gateway?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  async function mcpClient(agentId: string, server = 'local'): Promise<Client> {
    const client = new Client({ name: `int-${agentId}`, version: '1.0.0' });
    const token = gateway.agents[agentId]!.token;
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.httpUrl}/v1/mcp/${server}`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
  }

  /** Waits until `count` calls of `tool` reached the upstream since `from` lines of the record. */
  async function reached(tool: string, count: number, from: number): Promise<void> {
    await vi.waitFor(
      async () => {
        const lines = (await recordLines()).slice(from).filter((line) => line.includes(`"tool":"${tool}"`));
        if (lines.length < count) throw new Error(`${lines.length} of ${count} ${tool} calls reached the upstream`);
      },
      { timeout: 15_000, interval: 20 },
    );
  }

  async function recordLines(): Promise<string[]> {
    return (await readFile(record, 'utf8').catch(() => '')).split('\n').filter((line) => line.length > 0);
  }

  /** The post-tool-use jobs the worker was given for `tool` of `server`. */
  function postJobs(server: string, tool: string): HookJobData[] {
    return jobs.filter((job) => job.trigger === 'post-tool-use' && (job.context['mcp'] as { server?: string; tool?: string } | undefined)?.server === server && (job.context['mcp'] as { tool?: string }).tool === tool);
  }

  it("answers one agent's unknown tool to it alone: another agent's call in flight completes, on the same upstream process", async () => {
    const alpha = await mcpClient('alpha');
    const beta = await mcpClient('beta');
    const pid = pidOf(await call(alpha, 'slow', { ms: 1 }));
    const from = (await recordLines()).length;

    const inFlight = call(alpha, 'slow', { ms: 1500 });
    await reached('slow', 1, from);
    const unknown = await call(beta, 'no_such_tool');
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('Unknown tool: no_such_tool');
    // The upstream's answer went through the result's inspection like any tool error.
    expect(postJobs('local', 'no_such_tool')).toEqual([expect.objectContaining({ context: expect.objectContaining({ tool: expect.objectContaining({ ok: false }) }) })]);

    const survived = await inFlight;
    expect(survived.isError).toBeFalsy();
    expect(textOf(survived)).toContain('slept 1500 ms');
    expect(pidOf(survived)).toBe(pid);
  });

  it("redacts a resource link's fields and shows them to the post-tool-use rules; the upstream's _meta does not reach the model", async () => {
    const alpha = await mcpClient('alpha');
    const result = await call(alpha, 'read_config', { link: true });
    expect(result.isError).toBeFalsy();
    const all = JSON.stringify(result);
    expect(all).not.toContain(FIXTURE_SECRETS.aws);
    expect(all).not.toContain(FIXTURE_SECRETS.internal);
    expect(all).not.toContain('hidden');
    expect(result.content[0]).toEqual({ type: 'resource_link', uri: 'https://[redacted]@config.example.com/app.env', name: 'app.env [redacted]', description: 'owner=platform aws_access_key_id=[redacted]' });
    const [post] = postJobs('local', 'read_config');
    expect((post?.context['tool'] as { output: string }).output).toBe('[resource_link uri=https://[redacted]@config.example.com/app.env name=app.env [redacted]] owner=platform aws_access_key_id=[redacted]');
  });

  it("passes an upstream's error to tools/list on as the list's error, redacted, and keeps the connection", async () => {
    const alpha = await mcpClient('alpha');
    const pid = pidOf(await call(alpha, 'slow', { ms: 1 }));
    const failed = await alpha.listTools({ cursor: 'nope' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toContain('the upstream server "local" answered with an error');
    expect((failed as Error).message).toContain('no page nope');
    expect((failed as Error).message).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(pidOf(await call(alpha, 'slow', { ms: 1 }))).toBe(pid);
  });

  it("refuses a call past the agent's cap of calls in flight on the server, while another agent still gets through", async () => {
    const alpha = await mcpClient('alpha');
    const beta = await mcpClient('beta');
    const from = (await recordLines()).length;
    const running = [call(alpha, 'slow', { ms: 2500 }), call(alpha, 'slow', { ms: 2500 })];
    await reached('slow', 2, from);

    const refused = await call(alpha, 'echo', { text: 'third' });
    expect(refused.isError).toBe(true);
    expect(decisionMeta(refused)).toMatchObject({ outcome: 'too_many_calls', limit: 2 });
    expect(textOf(refused)).toContain('2 calls in flight');
    expect((await recordLines()).some((line) => line.includes('"third"'))).toBe(false);
    expect((await call(beta, 'echo', { text: 'other agent' })).isError).toBeFalsy();

    for (const result of await Promise.all(running)) expect(result.isError).toBeFalsy();
    // Its calls ended: the slots are back.
    expect((await call(alpha, 'echo', { text: 'after' })).isError).toBeFalsy();
  });

  it('withholds a result too large for the post-tool-use rules to see in full (fail closed), without recording a hook for it', async () => {
    const alpha = await mcpClient('alpha');
    const tail = 'PAST-THE-LIMIT';
    const oversized = await call(alpha, 'big', { chars: LIMIT + 1000, tail });
    expect(oversized.isError).toBe(true);
    expect(textOf(oversized)).not.toContain(tail);
    expect(textOf(oversized)).toContain('larger than AHP can inspect');
    expect(decisionMeta(oversized)).toMatchObject({ outcome: 'result_withheld', reason: 'too_large_to_inspect', text_chars: LIMIT + 1000, limit_chars: LIMIT });
    expect(postJobs('local', 'big')).toEqual([]);
    expect(gateway.logs.some((line) => line.includes('MCP result withheld: too large to inspect in full'))).toBe(true);

    // Structured content over the context limits (an array of 1,001) is not seen either, unless the text carries it serialized.
    const items = LIMITS.maxArrayLength + 1;
    expect(decisionMeta(await call(alpha, 'big', { chars: 10, tail, items }))).toMatchObject({ outcome: 'result_withheld' });
    const serialized = await call(alpha, 'big', { chars: 10, tail, items, json: true });
    expect(serialized.isError).toBeFalsy();
    expect(serialized.structuredContent).toMatchObject({ items: expect.any(Array) });

    // At the limit, it is inspected in full and delivered.
    const fits = await call(alpha, 'big', { chars: LIMIT, tail });
    expect(fits.isError).toBeFalsy();
    expect(textOf(fits)).toContain(tail);
    // Two hooks only, for the two delivered results, each seeing its result's text whole.
    const outputs = postJobs('local', 'big').map((job) => (job.context['tool'] as { output: string }).output);
    expect(outputs).toHaveLength(2);
    expect(outputs[0]).toBe(JSON.stringify(serialized.structuredContent));
    expect(outputs[1]).toHaveLength(LIMIT);
    expect(outputs[1]!.endsWith(tail)).toBe(true);
  });

  it('lets a too-large result of a fail_open tool through, marked as partly inspected', async () => {
    const alpha = await mcpClient('alpha', 'lenient');
    const tail = 'PAST-THE-LIMIT';
    const result = await call(alpha, 'big', { chars: LIMIT + 1000, tail });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain(tail);
    expect(decisionMeta(result)).toMatchObject({ outcome: 'allowed', inspected: 'partial' });
    const [post] = postJobs('lenient', 'big');
    expect(post?.context['tool']).toMatchObject({ output: expect.not.stringContaining(tail) });
    expect((post?.context['tool'] as { output: string }).output).toHaveLength(LIMIT);
  });
});
