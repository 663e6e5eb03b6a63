/**
 * The replay engine over hand-made records: which hooks a candidate changes and how, per rule and
 * per agent; escalation simulated in the replay's own counters; approvals; oracles that fail.
 */
import { ConfigReplayReportSchema, replayDecisionOf, type AgentIdentity, type HookTrigger, type JsonObject, type ReplayRecord } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { deps, hookIds, hookInput } from '../../test/helpers.js';
import type { CompiledHooks } from '../config/compile.js';
import { validateHooksConfig } from '../config/validate.js';
import type { Oracle } from '../oracle.js';
import { createMemoryRuleCounters } from '../rules/counters.js';
import { replayConfig, type ReplayInput } from './replay.js';

const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;
const T0 = Date.parse('2026-11-20T10:00:00.000Z');
const ALICE: AgentIdentity = { id: 'alice', name: 'Alice' };
const BOB: AgentIdentity = { id: 'bob', name: 'Bob' };

function compile(source: string, plugins: Oracle[] = []): CompiledHooks {
  const result = validateHooksConfig(source, { plugins });
  if (!result.ok) throw new Error(result.issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n'));
  return result.compiled;
}

/** The live configuration: makes `rm` interactive. */
const LIVE = yaml(
  'hooks:',
  '  pre-tool-use:',
  '    oracles:',
  '      - name: shell',
  '        use: rules',
  '        rules:',
  '          - id: rm',
  '            condition: \'tool.name == "bash" and tool.input.command matches /^rm /\'',
  '            intensity: control',
  '            action: { type: set, target: interactive, value: true }',
);

/** The candidate: the same, plus a block of `git push --force`. */
const NO_FORCE_PUSH = yaml(
  'hooks:',
  '  pre-tool-use:',
  '    oracles:',
  '      - name: shell',
  '        use: rules',
  '        rules:',
  '          - id: rm',
  '            condition: \'tool.name == "bash" and tool.input.command matches /^rm /\'',
  '            intensity: control',
  '            action: { type: set, target: interactive, value: true }',
  '          - id: force-push',
  '            condition: \'tool.name == "bash" and tool.input.command matches /git\\s+push\\s+(-f|--force)/\'',
  '            intensity: block',
  '            message: no force push',
);

const nextHookId = hookIds();

/** Records `commands` as the live configuration decided them, one minute apart. */
async function record(live: CompiledHooks, calls: { agent: AgentIdentity; command: string; trigger?: HookTrigger }[]): Promise<ReplayRecord[]> {
  const counters = createMemoryRuleCounters();
  const records: ReplayRecord[] = [];
  for (const [i, call] of calls.entries()) {
    const context: JsonObject = { tool: { name: 'bash', input: { command: call.command } } };
    const input = hookInput(call.trigger ?? 'pre-tool-use', context, { agent: call.agent, nextId: nextHookId, sessionId: `s-${call.agent.id}` });
    const decision = await live.evaluate(input, deps({ counters }));
    const bytes = Buffer.byteLength(JSON.stringify(context));
    records.push({ hook_id: input.hookId, trigger: input.trigger, agent: call.agent, session_id: input.sessionId, at: T0 + i * 60_000, config_version: 4, decision: replayDecisionOf(decision), context, context_bytes: bytes });
  }
  return records;
}

async function* items(records: readonly ReplayRecord[], extra: ReplayInput[] = []): AsyncGenerator<ReplayInput> {
  for (const entry of extra) yield entry;
  for (const entry of records) yield { kind: 'record', record: entry };
}

function replay(candidate: CompiledHooks, records: readonly ReplayRecord[], more: Partial<Parameters<typeof replayConfig>[0]> = {}) {
  return replayConfig({ compiled: candidate, records: items(records), sinceMs: T0, untilMs: T0 + 3_600_000, limit: 1000, ...more });
}

describe('replayConfig', () => {
  it('reports exactly the force pushes as allow→block, per rule and per agent', async () => {
    const records = await record(compile(LIVE), [
      { agent: ALICE, command: 'ls -la' },
      { agent: ALICE, command: 'git push --force origin main' },
      { agent: BOB, command: 'rm build.log' },
      { agent: BOB, command: 'git push -f' },
      { agent: BOB, command: 'git push origin main' },
    ]);
    const report = await replay(compile(NO_FORCE_PUSH), records);
    expect(ConfigReplayReportSchema.safeParse(report).success).toBe(true);
    expect(report).toMatchObject({ total: 5, unchanged: 3, changed: 2, rules_changed: 0, truncated: false, skipped: { oversize: 0, unreadable: 0 } });
    expect(report.transitions).toEqual([{ from: 'allow', to: 'block', count: 2 }]);
    expect(report.examples.map((e) => e.hook_id)).toEqual([records[1]!.hook_id, records[3]!.hook_id]);
    expect(report.examples[0]).toMatchObject({ agent_id: 'alice', before: { level: 'allow', rules: [] }, after: { level: 'block', rules: ['shell/force-push'] }, config_version: 4 });
    expect(report.by_rule).toEqual([{ rule: 'shell/force-push', changed: 2, transitions: [{ from: 'allow', to: 'block', count: 2 }] }]);
    expect(report.by_agent).toEqual([
      { agent_id: 'bob', total: 3, changed: 1, transitions: [{ from: 'allow', to: 'block', count: 1 }] },
      { agent_id: 'alice', total: 2, changed: 1, transitions: [{ from: 'allow', to: 'block', count: 1 }] },
    ]);
    expect(report.recorded_versions).toEqual([{ version: 4, count: 5 }]);
  });

  it('attributes a loosening to the rule that no longer fires', async () => {
    const records = await record(compile(NO_FORCE_PUSH), [{ agent: ALICE, command: 'git push --force' }, { agent: ALICE, command: 'rm x' }]);
    const report = await replay(compile(LIVE), records);
    expect(report.transitions).toEqual([{ from: 'block', to: 'allow', count: 1 }]);
    expect(report.by_rule).toEqual([{ rule: 'shell/force-push', changed: 1, transitions: [{ from: 'block', to: 'allow', count: 1 }] }]);
  });

  it('simulates escalation per agent in its own counters, on the recorded clock', async () => {
    const escalating = compile(
      yaml(
        'hooks:',
        '  pre-tool-use:',
        '    oracles:',
        '      - name: shell',
        '        use: rules',
        '        rules:',
        '          - id: rm',
        '            condition: \'tool.name == "bash" and tool.input.command matches /^rm /\'',
        '            escalation: { steps: [control, block], ttl: 30m }',
        "            action: { type: set, target: interactive, value: true }",
      ),
    );
    // Alice's second rm escalates; Bob's first does not (his own count); Alice's third comes
    // 50 recorded minutes after her second, past the 30 min TTL: control again.
    const live = await record(compile(LIVE), [
      { agent: ALICE, command: 'rm a' },
      { agent: ALICE, command: 'rm b' },
      { agent: BOB, command: 'rm c' },
    ]);
    const late = { ...(await record(compile(LIVE), [{ agent: ALICE, command: 'rm d' }]))[0]!, at: T0 + 51 * 60_000 };
    const report = await replay(escalating, [...live, late]);
    expect(report.transitions).toEqual([{ from: 'control', to: 'block', count: 1 }]);
    expect(report.examples.map((e) => e.hook_id)).toEqual([live[1]!.hook_id]);
    expect(report.by_agent.find((a) => a.agent_id === 'bob')).toMatchObject({ total: 1, changed: 0 });
  });

  it('counts decisions that would wait for an approval', async () => {
    const approving = compile(
      yaml(
        'hooks:',
        '  pre-tool-use:',
        '    oracles:',
        '      - name: risky',
        '        use: rules',
        '        rules:',
        '          - id: force-push',
        '            condition: \'tool.name == "bash" and tool.input.command matches /git push --force/\'',
        '            require_approval: { deadline: 10m }',
      ),
    );
    const records = await record(compile(LIVE), [{ agent: ALICE, command: 'git push --force' }, { agent: ALICE, command: 'ls' }]);
    const report = await replay(approving, records);
    expect(report.approvals.count).toBe(1);
    expect(report.approvals.examples[0]).toMatchObject({ hook_id: records[0]!.hook_id, after: { level: 'block', approval: true } });
    // Classified as shadow mode does (decision-outcome.ts of @ahp/protocol): an approval, not a plain block.
    expect(report.transitions).toEqual([{ from: 'allow', to: 'approval', count: 1 }]);
    // A plain block the candidate holds for approval instead is a change too (a person may now let it through).
    const blocked = await record(compile(NO_FORCE_PUSH), [{ agent: ALICE, command: 'git push --force' }]);
    const softened = await replay(approving, blocked);
    expect(softened).toMatchObject({ total: 1, changed: 1, unchanged: 0 });
    expect(softened.transitions).toEqual([{ from: 'block', to: 'approval', count: 1 }]);
    expect(softened.by_rule).toEqual([{ rule: 'risky/force-push', changed: 1, transitions: [{ from: 'block', to: 'approval', count: 1 }] }]);
  });

  it('reports the oracles of the candidate that fail, and goes on', async () => {
    const broken: Oracle = {
      name: 'flaky',
      triggers: ['pre-tool-use'],
      evaluate: () => {
        throw new Error('no database');
      },
    };
    const candidate = compile(yaml('hooks:', '  pre-tool-use:', '    failure_policy: fail_closed', '    oracles:', '      - name: flaky'), [broken]);
    const records = await record(compile(LIVE), [{ agent: ALICE, command: 'ls' }, { agent: BOB, command: 'ls' }]);
    const report = await replay(candidate, records);
    expect(report.oracle_errors).toEqual([{ oracle: 'flaky', outcome: 'threw', count: 2, message: expect.stringContaining('no database'), example_hook_id: records[0]!.hook_id }]);
    expect(report.transitions).toEqual([{ from: 'allow', to: 'block', count: 2 }]);
    expect(report.by_rule).toEqual([{ rule: '(none)', changed: 2, transitions: [{ from: 'allow', to: 'block', count: 2 }] }]);
  });

  it('skips oversize and unreadable entries, stops at the limit, caps examples and reports progress', async () => {
    const records = await record(compile(LIVE), [
      { agent: ALICE, command: 'git push --force 1' },
      { agent: ALICE, command: 'git push --force 2' },
      { agent: ALICE, command: 'git push --force 3' },
      { agent: ALICE, command: 'git push --force 4' },
    ]);
    const { context: _dropped, ...oversize } = records[0]!;
    const progress: { read: number; fraction: number }[] = [];
    const report = await replayConfig({
      compiled: compile(NO_FORCE_PUSH),
      records: items([oversize, ...records.slice(1)], [{ kind: 'unreadable' }]),
      sinceMs: T0,
      untilMs: T0 + 4 * 60_000,
      limit: 3,
      maxExamples: 1,
      checkpointEvery: 2,
      checkpoint: (p) => {
        progress.push(p);
      },
    });
    expect(report).toMatchObject({ total: 2, changed: 2, truncated: true, skipped: { oversize: 1, unreadable: 1 } });
    expect(report.examples).toHaveLength(1);
    expect(progress.at(-1)).toEqual({ read: 4, fraction: 1 });
    expect(progress[0]).toEqual({ read: 2, fraction: 0 });
  });

  it('stops when the checkpoint throws (a cancelled replay)', async () => {
    const records = await record(compile(LIVE), [{ agent: ALICE, command: 'ls' }, { agent: ALICE, command: 'ls' }]);
    await expect(
      replay(compile(NO_FORCE_PUSH), records, {
        checkpointEvery: 1,
        checkpoint: () => {
          throw new Error('cancelled');
        },
      }),
    ).rejects.toThrow('cancelled');
  });

  it('finds nothing to change when the candidate is the live configuration', async () => {
    const records = await record(compile(NO_FORCE_PUSH), [{ agent: ALICE, command: 'git push --force' }, { agent: BOB, command: 'rm x' }, { agent: BOB, command: 'ls' }]);
    const report = await replay(compile(NO_FORCE_PUSH), records);
    expect(report).toMatchObject({ total: 3, unchanged: 3, changed: 0, transitions: [], by_rule: [], examples: [] });
  });
});
