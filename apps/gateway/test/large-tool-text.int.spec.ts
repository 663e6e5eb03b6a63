/**
 * Large tool text on one real gateway (in-process, the run's private Redis), with post-tool-use
 * failing closed (AHP_FAILURE_POLICIES): what the gateway queues for the rules is the tool's text
 * whole, up to 256 KiB a string — over WebSocket and over Claude Code's hook route — and a tool
 * result it cannot queue whole is refused with its sizes, not evaluated in part. The test plays the
 * worker: it reads the queued job and stores a decision as a worker would. The rules themselves
 * reading that text run in e2e/system/large-tool-text.int.spec.ts (gateway and worker processes).
 */
import { randomUUID } from 'node:crypto';
import { ClaudeCodeHookOutputSchema, LIMITS, type HookJobData } from '@ahp/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { postHook, hookJobTaker } from './support/coding-agent-hooks.js';
import { waitForJob, workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [{ id: 'writer', name: 'Writer', token: newToken() }];
const KIB = 1024;

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  gw = await startTestGateway({ name: 'large-tool-text', agents: AGENTS, env: { AHP_FAILURE_POLICIES: JSON.stringify({ 'post-tool-use': 'fail_closed' }) } });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

const nextJob = hookJobTaker(() => store);

function claudeCode(event: string, fields: Record<string, unknown>): Promise<Response> {
  const body = { session_id: 'cc-large', transcript_path: '/tmp/t.jsonl', cwd: '/w', permission_mode: 'default', hook_event_name: event, ...fields };
  return postHook(gw, 'claude-code', body, `Bearer ${AGENTS[0]!.token}`);
}

async function jobCount(): Promise<number> {
  const counts = await Promise.all(store.queue.queues.map((queue) => queue.getJobCounts('wait', 'prioritized', 'delayed', 'active', 'completed', 'failed')));
  return counts.flatMap((shard) => Object.values(shard)).reduce((sum, count) => sum + count, 0);
}

describe('large tool text', () => {
  it('Claude Code: a PreToolUse Write of a 100 KiB file is queued whole for the rules (it was denied unread)', async () => {
    const content = `${'c'.repeat(100 * KIB)}-----BEGIN PRIVATE KEY-----`;
    const answer = claudeCode('PreToolUse', { tool_name: 'Write', tool_input: { file_path: 'id.pem', content }, tool_use_id: 't1' });
    const job = await nextJob();
    expect(job.context['tool']).toEqual({ name: 'Write', input: { file_path: 'id.pem', content } });
    await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger), Date.now());
    const response = await answer;
    expect(response.status).toBe(200);
    expect(ClaudeCodeHookOutputSchema.parse(await response.json())).toEqual({});
  });

  it('Claude Code: a PostToolUse whose output is over 256 KiB is blocked with its sizes under fail_closed, and nothing is queued', async () => {
    const before = await jobCount();
    const stdout = 'o'.repeat(LIMITS.maxLongText + 5);
    const response = await claudeCode('PostToolUse', { tool_name: 'Bash', tool_input: { command: 'cat bigger.log' }, tool_response: { stdout, stderr: '' }, tool_use_id: 't2' });
    expect(response.status).toBe(200);
    const output = ClaudeCodeHookOutputSchema.parse(await response.json());
    expect(output.decision).toBe('block');
    expect(output.reason).toContain('Blocked by AHP (fail-closed): the tool ran, but its result is larger than AHP can inspect in full');
    expect(output.reason).toContain(`tool.response.stdout: ${LIMITS.maxLongText + 5} characters`);
    expect(output.reason).toContain('post-tool-use fails closed');
    expect(await jobCount()).toBe(before);
  });

  it('Claude Code: a PreToolUse over 256 KiB is denied whatever the policy: no rule may see part of what runs', async () => {
    const before = await jobCount();
    const response = await claudeCode('PreToolUse', { tool_name: 'Write', tool_input: { file_path: 'big.txt', content: 'x'.repeat(LIMITS.maxLongText + 1) }, tool_use_id: 't3' });
    const output = ClaudeCodeHookOutputSchema.parse(await response.json());
    expect(output.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(output.hookSpecificOutput?.permissionDecisionReason).toContain(`tool.input.content: string longer than ${LIMITS.maxLongText} characters`);
    expect(await jobCount()).toBe(before);
  });

  it('WebSocket: a post-tool-use output of 200 KiB is queued whole and decided', async () => {
    const { client } = await connectReady(gw.wsUrl, AGENTS[0]!.token);
    clients.push(client);
    const id = randomUUID();
    const output = `${'o'.repeat(200 * KIB)}END`;
    client.send({ type: 'hook', id, trigger: 'post-tool-use', context: { tool: { name: 'bash', input: { command: 'cat big.log' }, ok: true, output } } });
    const job: HookJobData = await waitForJob(store, id);
    expect((job.context['tool'] as { output: string }).output).toBe(output);
    await store.stores.hooks.decide(id, workerDecision(id, 'post-tool-use'), Date.now());
    expect(await client.reply(id)).toMatchObject({ type: 'decision', decision: { allowed: true } });
  });
});
