/**
 * POST /v1/hooks/claude-code on a real gateway (in-process, the run's private Redis): Claude
 * Code's documented hook inputs go in, its hook outputs come out. The oracle worker is played by
 * the test, which takes the job from the queue and stores a decision as a worker would.
 */
import { randomUUID } from 'node:crypto';
import {
  ClaudeCodeHookOutputSchema,
  OperatorErrorBodySchema,
  type HookJobData,
  type HookTrigger,
  type Signal,
} from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claudeCodeSessionId } from '../src/claude-code/claude-code.service.js';
import { promptSignal, workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'claude', name: 'Claude', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'gone', name: 'Gone', token: newToken(), revoked: true },
];
const SESSION = randomUUID();

let gw: TestGateway;
let store: TestStore;
const seen = new Set<string>();

beforeAll(async () => {
  // pre-tool-use waits at most 1.5 s here, so the fail-closed case stays short; the others are decided well before.
  gw = await startTestGateway({ name: 'claude-code', agents: AGENTS, env: { AHP_CLAUDE_CODE_DEADLINE_MS: '1500' } });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

/** Claude Code's common input fields plus the event's own. */
function input(event: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    session_id: SESSION,
    transcript_path: '/home/dev/.claude/projects/app/transcript.jsonl',
    cwd: '/home/dev/app',
    permission_mode: 'default',
    hook_event_name: event,
    ...fields,
  };
}

const BASH = { tool_name: 'Bash', tool_input: { command: 'npm test -- --maxWorkers=16', description: 'Run the tests' }, tool_use_id: 'toolu_01' };

/** Posts a hook input; `authorization: null` sends no Authorization header. */
function post(body: unknown, authorization: string | null = `Bearer ${AGENTS[0]!.token}`): Promise<Response> {
  return fetch(`${gw.httpUrl}/v1/hooks/claude-code`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(authorization === null ? {} : { authorization }) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The next job the gateway enqueued, as a worker would take it. */
async function nextJob(): Promise<HookJobData> {
  return vi.waitFor(
    async () => {
      const jobs = await store.queue.queue.getJobs(['wait', 'waiting', 'prioritized', 'delayed', 'active']);
      const job = jobs.find((candidate) => !seen.has(candidate.data.hook_id));
      if (job === undefined) throw new Error('no new job yet');
      seen.add(job.data.hook_id);
      return job.data;
    },
    { timeout: 10_000, interval: 20 },
  );
}

/** Posts `body`, decides its hook as a worker with `signals`, and returns the job and the answer. */
async function decided(body: unknown, signals: (hookId: string) => Signal[]): Promise<{ job: HookJobData; output: unknown }> {
  const response = post(body);
  const job = await nextJob();
  await store.stores.hooks.decide(job.hook_id, workerDecision(job.hook_id, job.trigger, signals(job.hook_id)), Date.now());
  const answer = await response;
  expect(answer.status).toBe(200);
  const output: unknown = await answer.json();
  expect(ClaudeCodeHookOutputSchema.safeParse(output).success).toBe(true);
  return { job, output };
}

function signal(hookId: string, intensity: 'block' | 'control' | 'aid', payload: Signal['payload']): Signal {
  return {
    header: { id: randomUUID(), type: 'policy', timestamp: new Date().toISOString(), source: 'int-spec-oracle', intensity, correlation_id: hookId },
    context: {},
    payload,
  };
}

function errorOf(json: unknown) {
  return OperatorErrorBodySchema.parse(json).error;
}

describe('PreToolUse', () => {
  it('maps the tool call to pre-tool-use in the agent\'s Claude Code session and answers {} when no oracle objects', async () => {
    const { job, output } = await decided(input('PreToolUse', BASH), () => []);
    expect(job.trigger).toBe<HookTrigger>('pre-tool-use');
    expect(job.agent.id).toBe('claude');
    expect(job.session_id).toBe(claudeCodeSessionId('claude', SESSION));
    expect(job.context).toEqual({
      cwd: '/home/dev/app',
      tool: { name: 'Bash', input: BASH.tool_input },
      claude: { session_id: SESSION, transcript_path: '/home/dev/.claude/projects/app/transcript.jsonl', permission_mode: 'default', hook_event_name: 'PreToolUse' },
    });
    // No objection is not a permission: Claude Code's own permission rules still apply.
    expect(output).toEqual({});
  });

  it('answers a block with permissionDecision deny and the oracle\'s reason', async () => {
    const { output } = await decided(input('PreToolUse', BASH), (hookId) => [
      signal(hookId, 'block', { level: 'blocking', decision: 'deny', reason: 'tests may not run on main', resolvable: true, resolution_path: ['switch to a branch'] }),
    ]);
    expect(output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'Blocked by AHP: tests may not run on main To resolve: switch to a branch.',
      },
    });
  });

  it('answers a control with allow and updatedInput carrying the modification', async () => {
    const { output } = await decided(input('PreToolUse', BASH), (hookId) => [
      signal(hookId, 'control', {
        level: 'controlling',
        decision: 'allow_with_modification',
        modifications: [{ target: 'tool.input.command', original: BASH.tool_input.command, updated: 'npm test -- --maxWorkers=2', reason: 'two cores only' }],
        reversible: true,
      }),
    ]);
    expect(output).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: 'Adjusted by AHP: tool.input.command: two cores only',
        updatedInput: { command: 'npm test -- --maxWorkers=2', description: 'Run the tests' },
      },
    });
  });

  it('accepts a tool input far above the default body limit and still answers in Claude Code\'s format', async () => {
    const write = { tool_name: 'Write', tool_input: { file_path: '/home/dev/app/big.txt', content: 'x'.repeat(300_000) }, tool_use_id: 'toolu_big' };
    const answer = await post(input('PreToolUse', write));
    expect(answer.status).toBe(200);
    // A single string this long exceeds the hook context limits: the failure policy answers, explicitly.
    expect(await answer.json()).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' } });
  });

  it('answers an explicit deny when no decision arrives in time (pre-tool-use fails closed)', async () => {
    const response = await post(input('PreToolUse', BASH));
    await nextJob(); // enqueued, but no worker answers
    expect(response.status).toBe(200);
    const output = ClaudeCodeHookOutputSchema.parse(await response.json());
    expect(output.hookSpecificOutput?.permissionDecision).toBe('deny');
    expect(output.hookSpecificOutput?.permissionDecisionReason).toMatch(/fail-closed.*E_TIMEOUT/);
  });
});

describe('other events', () => {
  it('maps PostToolUse with the tool response and passes prompt warnings as context', async () => {
    const { job, output } = await decided(
      input('PostToolUse', { ...BASH, tool_response: { stdout: '2 failed', exitCode: 1 } }),
      (hookId) => [promptSignal(hookId)],
    );
    expect(job.trigger).toBe<HookTrigger>('post-tool-use');
    expect(job.context['tool']).toEqual({ name: 'Bash', input: BASH.tool_input, response: { stdout: '2 failed', exitCode: 1 } });
    expect(output).toEqual({
      systemMessage: 'AHP: consider running the tests first',
      hookSpecificOutput: {
        hookEventName: 'PostToolUse',
        additionalContext: 'AHP warning: consider running the tests first\nAHP suggestion: run the tests',
      },
    });
  });

  it('maps UserPromptSubmit and blocks it with decision "block"', async () => {
    const { job, output } = await decided(input('UserPromptSubmit', { prompt: 'deploy to prod' }), (hookId) => [
      signal(hookId, 'block', { level: 'blocking', decision: 'deny', reason: 'deploys need a change ticket', resolvable: false, resolution_path: [] }),
    ]);
    expect(job.trigger).toBe<HookTrigger>('user-prompt-submit');
    expect(job.context['prompt']).toBe('deploy to prod');
    expect(output).toEqual({ decision: 'block', reason: 'Blocked by AHP: deploys need a change ticket' });
  });

  it('keeps fields Claude Code adds without rejecting them', async () => {
    const { job } = await decided(input('Stop', { stop_hook_active: false, some_future_field: { x: 1 } }), () => []);
    expect(job.trigger).toBe<HookTrigger>('stop');
  });
});

describe('refusals', () => {
  it('answers 400 with a typed error for a body that is not a Claude Code hook input', async () => {
    const response = await post(input('PreToolUse', { tool_input: {} }));
    expect(response.status).toBe(400);
    const error = errorOf(await response.json());
    expect(error.code).toBe('E_INVALID_FRAME');
    expect(error.message).toContain('tool_name');
  });

  it('answers 401 without a token, with an unknown one, and with a revoked one', async () => {
    for (const authorization of [null, `Bearer ${newToken()}`, `Bearer ${AGENTS[1]!.token}`]) {
      const response = await post(input('PreToolUse', BASH), authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(errorOf(await response.json()).code).toBe('E_UNAUTHORIZED');
    }
  });
});
