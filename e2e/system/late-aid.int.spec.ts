// Starts: a private Redis, one gateway process and one worker process loading the late-aid test
// oracle (e2e/fixtures/late-aid-oracle.mjs). A post-tool-use hook is answered by its failure
// policy at a short deadline while the oracle is still thinking; the aid it produces afterwards
// reaches the agent as a pushed `signal` tied to the hook, is answered, and both are in the log;
// the hook's drill-down (operator API) shows the policy's decision and the worker's late evaluation.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AhpClient } from '@ahp/sdk';
import { PolicyHookDrillDownSchema, type Signal } from '@ahp/protocol';
import { readSignalLog } from '@ahp/store';
import { createKeys } from '@ahp/store';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

const LATE_AID_PLUGIN = fileURLToPath(new URL('../fixtures/late-aid-oracle.mjs', import.meta.url));

describe('late aid of post-* hooks (gateway and worker processes)', () => {
  let system: System;
  let agent: AhpClient;
  let operators: OperatorTokens;
  const pushed: Signal[] = [];

  beforeAll(async () => {
    operators = await writeOperatorTokens([{ id: 'op-viv', name: 'Viv', role: 'viewer' }]);
    system = await startSystem({
      name: 'late-aid',
      gateways: 1,
      workers: 1,
      agents: [{ id: 'builder', name: 'Builder' }],
      gatewayEnv: { AHP_OPERATOR_TOKENS_FILE: operators.file },
      workerEnv: { AHP_ORACLE_PLUGINS: LATE_AID_PLUGIN, AHP_LATE_AID_WINDOW_MS: '10000' },
    });
    agent = await connect({ url: system.stack.gatewayUrls(), token: system.token('builder') });
    agent.onSignal((signal) => {
      pushed.push(signal);
    });
  });

  afterAll(async () => {
    agent?.close();
    await system?.stop();
    await operators?.remove();
  });

  it('pushes the aid that came after the decision, tied to the hook, and logs its answer', async () => {
    const context = { tool: { name: 'bash', input: { command: 'make all' } }, extra: { late_aid: { ms: 1_200 } } };
    const result = await agent.hook('post-tool-use', context, { evaluationDeadlineMs: 300 });
    expect(result).toMatchObject({ allowed: true, decidedBy: 'failure_policy', error: { code: 'E_TIMEOUT' }, signals: [] });

    const signal = await eventually(() => pushed.find((s) => s.header.correlation_id === result.hookId), 'the late aid push');
    expect(signal.header).toMatchObject({ intensity: 'aid', source: 'late-aid-test', type: 'result-analysis' });
    expect(signal.payload).toMatchObject({ level: 'aiding', context: 'analysed bash after the hook was answered' });
    await agent.respond(signal, 'suggestion_applied');

    const keys = createKeys({ prefix: system.keyPrefix });
    const log = await eventually(async () => {
      const entries = (await readSignalLog(system.redis, keys, { count: 1000 })).filter((r) => r.entry.signal_id === signal.header.id);
      return entries.length === 2 ? entries : undefined;
    }, 'the signal and its answer in the log');
    expect(log.map((r) => [r.kind, r.entry.hook, r.entry.hook_id, r.entry.action ?? null])).toEqual([
      ['signal', 'post-tool-use', result.hookId, null],
      ['response', 'post-tool-use', result.hookId, 'suggestion_applied'],
    ]);
    // The drill-down: the policy's decision, and what the worker's too-late evaluation found.
    const drill = await eventually(async () => {
      const { status, json } = await operatorCall(operatorApi(system.stack.gateways[0]!), operators.token('op-viv'), 'GET', `/hooks/${result.hookId}`);
      if (status !== 200) return undefined;
      const parsed = PolicyHookDrillDownSchema.parse(json);
      return parsed.late === undefined || parsed.policy.context === undefined ? undefined : parsed;
    }, "the drill-down with the worker's late evaluation and its context");
    expect(drill.policy).toMatchObject({ allowed: true, policy: 'fail_open', error: { code: 'E_TIMEOUT' }, context });
    expect(drill.late).toMatchObject({ outcome: 'evaluated', allowed: true, intensity: 'aid', decided_by: 'oracles', signals: 1 });
    expect(drill.late?.outcome === 'evaluated' ? drill.late.oracles.find((o) => o.oracle === 'late-aid-test') : undefined).toMatchObject({ outcome: 'answered', signals: 1 });
    expect(Object.keys(drill.stages)).toEqual(expect.arrayContaining(['waited_ms', 'gateway_ms', 'queue_ms', 'worker_ms']));
    expect(drill.partial.unavailable).not.toContain('oracles');

    // The hook's own decision stays the failure policy's: a re-sent hook gets the same answer.
    const again = await agent.hook('post-tool-use', context, { hookId: result.hookId });
    expect(again.decision).toEqual(result.decision);
  });

  it('pushes nothing when the oracles answered in time: their aid is in the decision', async () => {
    const before = pushed.length;
    const result = await agent.hook('post-tool-use', { tool: { name: 'bash', input: { command: 'ls' } }, extra: { late_aid: { ms: 10 } } });
    expect(result.decidedBy).toBe('oracles');
    expect(result.signals.map((s) => s.header.source)).toEqual(['late-aid-test']);
    await agent.respond(result.signals[0]!, 'suggestion_deferred');
    // A later hook round trip orders after any push the worker could have made for the first one.
    await agent.hook('post-tool-use', { tool: { name: 'bash', input: { command: 'true' } } });
    expect(pushed.slice(before).filter((s) => s.header.correlation_id === result.hookId)).toEqual([]);
  });
});
