/**
 * checkToolCall / reportToolCall against a client that answers with real protocol decisions (built
 * by the protocol's aggregator): which verdict each decision gives, which answer each signal gets,
 * and that every way of not knowing ends in a block. The adapters' integration tests run the same
 * functions against a gateway and a worker.
 */
import { SignalSchema, type ConsumptionAction, type HookDecision, type JsonObject, type Signal } from '@ahp/protocol/wire';
import { describe, expect, it } from 'vitest';
import { decisionFor, failClosedFor, signalOf } from '../test/support/fixtures.js';
import type { HookOptions } from './hook-calls.js';
import { toHookResult, type HookResult } from './hook-result.js';
import { AhpClientError } from './errors.js';
import { checkToolCall, reportToolCall, type ToolGuardClient } from './tool-guard.js';

/** A client whose hooks answer with `decide(context)`, recording hooks and answers. */
function clientAnswering(decide: (trigger: string, context: JsonObject) => HookDecision | Error) {
  const hooks: { trigger: string; context: JsonObject; options: HookOptions | undefined }[] = [];
  const answers: { signal: string; action: ConsumptionAction }[] = [];
  const client: ToolGuardClient = {
    hook: async (trigger, context, options): Promise<HookResult> => {
      hooks.push({ trigger, context, options });
      const decision = decide(trigger, context);
      if (decision instanceof Error) throw decision;
      return toHookResult(decision);
    },
    respond: async (signal: Signal, action) => {
      answers.push({ signal: signal.header.id, action });
    },
  };
  return { client, hooks, answers };
}

const INPUT = { command: 'npm test', timeout_s: 600 };

describe('checkToolCall', () => {
  it('allows an unremarkable call with its input unchanged', async () => {
    const { client, hooks, answers } = clientAnswering((trigger) => decisionFor('h1', trigger as 'pre-tool-use', []));
    const check = await checkToolCall(client, 'bash', INPUT, { extra: { framework: 'test' } });
    expect(check).toMatchObject({ verdict: 'allow', input: INPUT, notes: [] });
    expect(hooks[0]?.context).toEqual({ tool: { name: 'bash', input: INPUT }, extra: { framework: 'test' } });
    expect(answers).toEqual([]);
  });

  it('applies a control, answers accept_modification and tells the model what changed', async () => {
    const control = signalOf('control');
    const { client, answers } = clientAnswering((trigger) => decisionFor('h1', trigger as 'pre-tool-use', [control]));
    const check = await checkToolCall(client, 'bash', INPUT);
    expect(check.verdict).toBe('allow');
    expect(check.verdict === 'allow' && check.input).toEqual({ command: 'npm test', timeout_s: 60 });
    expect(check.verdict === 'allow' && check.notes.join()).toContain('timeout_s → 60 (cap long commands)');
    expect(answers).toEqual([{ signal: control.header.id, action: 'accept_modification' }]);
  });

  it('blocks with the reason and the resolution path, answering retry_after_fix and rejecting a control of the same call', async () => {
    const block = signalOf('block');
    const control = signalOf('control');
    const { client, answers } = clientAnswering((trigger) => decisionFor('h1', trigger as 'pre-tool-use', [block, control]));
    const check = await checkToolCall(client, 'bash', INPUT);
    expect(check).toMatchObject({ verdict: 'block', reason: 'rm -rf outside the workspace', source: 'block-oracle' });
    expect(check.verdict === 'block' && check.message).toBe('BLOCKED by block-oracle: rm -rf outside the workspace\n- limit the path to ./build\n- ask an operator');
    expect(answers).toEqual([
      { signal: block.header.id, action: 'retry_after_fix' },
      { signal: control.header.id, action: 'reject_modification' },
    ]);
  });

  it('fails closed when no oracle answered', async () => {
    const { client } = clientAnswering((trigger) => failClosedFor('h1', trigger as 'pre-tool-use'));
    expect((await checkToolCall(client, 'bash', INPUT)).verdict).toBe('block');
  });

  it('fails closed when the hook cannot be asked, naming the error code', async () => {
    const { client } = clientAnswering(() => new AhpClientError('E_PLAN_PENDING', 'tool calls wait until plan approval req_1 is decided'));
    const check = await checkToolCall(client, 'bash', INPUT);
    expect(check).toMatchObject({ verdict: 'block', source: 'ahp-client' });
    expect(check.verdict === 'block' && check.reason).toContain('E_PLAN_PENDING');
  });

  it('fails closed when a modification cannot be applied, rejecting it', async () => {
    const control = signalOf('control');
    const decision = decisionFor('h1', 'pre-tool-use', [control]);
    // A target that reaches the prototype: the change is refused, and the unchanged call must not run.
    const broken: HookDecision = { ...decision, modifications: [{ target: '__proto__.polluted', original: null, updated: true, reason: 'r' }] };
    const { client, answers } = clientAnswering(() => broken);
    const check = await checkToolCall(client, 'bash', INPUT);
    expect(check.verdict).toBe('block');
    expect(answers).toEqual([{ signal: control.header.id, action: 'reject_modification' }]);
  });

  it('an approval wait is left to the approval, while a control merged into the same decision is answered', async () => {
    const control = signalOf('control');
    const waiting = SignalSchema.parse({
      ...signalOf('block', 'risky-commands'),
      payload: {
        level: 'blocking',
        decision: 'deny',
        reason: 'needs an operator',
        resolvable: true,
        resolution_path: ['wait'],
        resolution: { kind: 'await_approval', request_id: 'req_tool_1', deadline: '2026-02-09T10:15:00Z' },
      },
    });
    const { client, answers } = clientAnswering(() => decisionFor('h1', 'pre-tool-use', [waiting, control]));
    const check = await checkToolCall(client, 'bash', INPUT, { waitForApproval: false });
    expect(check).toMatchObject({ verdict: 'await_approval', requestId: 'req_tool_1', reason: 'needs an operator' });
    expect(answers).toEqual([{ signal: control.header.id, action: 'reject_modification' }]);
  });

  it('passes the approval request, the hook id and the wait option through', async () => {
    const { client, hooks } = clientAnswering((trigger) => decisionFor('h1', trigger as 'pre-tool-use', []));
    const hookId = globalThis.crypto.randomUUID();
    await checkToolCall(client, 'bash', INPUT, { approvalRequestId: 'req_tool_x', hookId, waitForApproval: false });
    expect(hooks[0]?.context).toEqual({ tool: { name: 'bash', input: INPUT }, approval: { request_id: 'req_tool_x' } });
    expect(hooks[0]?.options).toMatchObject({ hookId, waitForApproval: false });
  });
});

describe('reportToolCall', () => {
  it('sends post-tool-use with the output cut at 4000 characters and returns the suggestions, answered', async () => {
    const aid = signalOf('aid');
    const { client, hooks, answers } = clientAnswering((trigger) => decisionFor('h2', trigger as 'post-tool-use', [aid]));
    const notes = await reportToolCall(client, 'bash', INPUT, { ok: true, output: 'x'.repeat(5000) });
    expect(hooks[0]?.trigger).toBe('post-tool-use');
    expect(((hooks[0]?.context['tool'] as JsonObject)['output'] as string).length).toBe(4000);
    expect(notes[0]).toContain('commit the change');
    expect(answers).toEqual([{ signal: aid.header.id, action: 'suggestion_deferred' }]);
  });

  it('returns a failed report as a note instead of throwing', async () => {
    const { client } = clientAnswering(() => new AhpClientError('E_TIMEOUT', 'no decision'));
    expect(await reportToolCall(client, 'bash', INPUT, { ok: false, output: 'boom' })).toEqual(['NOTE: the post-tool-use report failed (E_TIMEOUT)']);
  });
});
