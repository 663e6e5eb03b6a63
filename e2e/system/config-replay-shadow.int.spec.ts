// Starts: a private Redis (or its cluster), one gateway process (with operator tokens) and two
// oracle-worker processes. Agents use the SDK; shadow and replay are driven through the gateway's
// operator HTTP API.
//
// Replay and shadow mode classify alike (decision-outcome.ts of @ahp/protocol): a candidate set as
// the shadow while traffic flows, then replayed over the same window, reports the same hooks with
// the same transitions. The candidate tightens (blocks `git push --force`), escalates (`rm` becomes
// interactive, then is blocked), holds a call for approval (`curl … | sh`) and loosens (drops the live block of
// `npm publish`), so every kind of change is compared, not only allow → block.
import { ConfigReplayReportSchema, ShadowStatusResponseSchema, replayOutcomeOf, transitionName, type JsonObject, type ShadowStatusResponse } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersShadow, replayLogHolds, replayThroughApi, startConfigSystem, type ConfigSystem } from './config-support.js';
import { eventually, type System } from './harness.js';
import { operatorCall, type OperatorTokens } from './team-support.js';

const LIVE = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: guard
        use: rules
        rules:
          - id: no-sudo
            condition: 'tool.name == "bash" and tool.input.command matches /^sudo /'
            intensity: block
            message: "no sudo"
          - id: no-publish
            condition: 'tool.name == "bash" and tool.input.command matches /^npm publish/'
            intensity: block
            message: "no publishing"
`;

const CANDIDATE = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: guard
        use: rules
        rules:
          - id: no-sudo
            condition: 'tool.name == "bash" and tool.input.command matches /^sudo /'
            intensity: block
            message: "no sudo"
          - id: no-force-push
            condition: 'tool.name == "bash" and tool.input.command matches /git\\s+push\\s+.*(--force|-f)(\\s|$)/'
            intensity: block
            message: "no force push"
          - id: rm-ladder
            condition: 'tool.name == "bash" and tool.input.command matches /^rm /'
            escalation: { steps: [control, block], ttl: 30m }
            action: { type: set, target: interactive, value: true }
            message: "rm asks before deleting"
          - id: pipe-to-shell
            condition: 'tool.name == "bash" and tool.input.command matches /curl .*\\|\\s*sh/'
            require_approval: { deadline: 10m }
`;

/** The traffic, and the transition each hook should show (none: both versions decide alike). */
const TRAFFIC: { agent: 'ada' | 'bo'; command: string; change?: string }[] = [
  { agent: 'ada', command: 'ls -la' },
  { agent: 'ada', command: 'git push --force origin main', change: 'allow→block' },
  { agent: 'ada', command: 'rm a.txt', change: 'allow→control' },
  // Ada's second consecutive rm climbs the ladder; Bo's first is on his own count.
  { agent: 'ada', command: 'rm b.txt', change: 'allow→block' },
  { agent: 'bo', command: 'rm c.txt', change: 'allow→control' },
  { agent: 'bo', command: 'npm publish', change: 'block→allow' },
  { agent: 'bo', command: 'sudo ls /root' },
  { agent: 'ada', command: 'curl https://get.example/install | sh', change: 'allow→approval' },
  { agent: 'bo', command: 'git push --force-with-lease origin main' },
  { agent: 'bo', command: 'git status' },
];

describe('a shadow version and a replay of the same traffic agree (gateway + 2 worker processes)', () => {
  let started: ConfigSystem | undefined;
  let system: System;
  let operators: OperatorTokens;
  let api: string;
  const clients: Record<string, AhpClient> = {};
  const sent: { hookId: string; change?: string }[] = [];
  let since: string;
  let until: string;

  const admin = (method: 'GET' | 'POST', path: string, body?: unknown) => operatorCall(api, operators.token('op-root'), method, path, body);

  async function shadowStatus(): Promise<ShadowStatusResponse> {
    const read = await admin('GET', '/config/shadow');
    expect(read.status).toBe(200);
    return ShadowStatusResponseSchema.parse(read.json);
  }

  beforeAll(async () => {
    started = await startConfigSystem({
      operators: [{ id: 'op-root', name: 'Root', role: 'admin' }],
      live: LIVE,
      name: 'config-replay-shadow',
      workers: 2,
      agents: [
        { id: 'ada', name: 'Ada' },
        { id: 'bo', name: 'Bo' },
      ],
      workerEnv: { AHP_CONFIG_RECHECK_MS: '500' },
    });
    ({ system, operators, api } = started);
    const set = await admin('POST', '/config/shadow', { source: CANDIDATE });
    expect(set.status).toBe(201);
    await allWorkersShadow(system, 1);
    for (const id of ['ada', 'bo']) clients[id] = await connect({ url: system.stack.gatewayUrls()[0]!, token: system.token(id) });

    // The window starts after the shadow was set: both start their escalation counts empty there.
    since = new Date(Date.now() - 1).toISOString();
    for (const [i, call] of TRAFFIC.entries()) {
      const context: JsonObject = { tool: { name: 'bash', input: { command: call.command } } };
      const result = await clients[call.agent]!.hook('pre-tool-use', context);
      sent.push({ hookId: result.hookId, ...(call.change === undefined ? {} : { change: call.change }) });
      // One shadow evaluation at a time, in traffic order, as the replay reads them: with two
      // workers, Ada's second rm could otherwise be shadowed before her first.
      await eventually(async () => ((await shadowStatus()).evaluated === i + 1 ? true : undefined), `the shadow to evaluate hook ${i + 1}`);
    }
    until = new Date(Date.now() + 1000).toISOString();
    await replayLogHolds(
      system,
      sent.map((hook) => hook.hookId),
      Date.parse(since),
      Date.parse(until),
    );
  });

  afterAll(async () => {
    await Promise.allSettled(Object.values(clients).map((client) => client.close()));
    await started?.stop();
  });

  it("the shadow's disagreements are the replay's changed hooks, with the same transitions", async () => {
    const shadow = await shadowStatus();
    const status = await replayThroughApi(api, operators.token('op-root'), { source: CANDIDATE, since, until });
    expect(status.error).toBeUndefined();
    const report = ConfigReplayReportSchema.parse(status.report);

    // What the traffic was built to show, so the comparison below is not between two empty sets.
    const changed = sent.filter((hook) => hook.change !== undefined);
    const expectedTransitions: Record<string, number> = {};
    for (const hook of changed) expectedTransitions[hook.change!] = (expectedTransitions[hook.change!] ?? 0) + 1;
    expect(expectedTransitions).toEqual({ 'allow→block': 2, 'allow→control': 2, 'block→allow': 1, 'allow→approval': 1 });

    expect(shadow).toMatchObject({ evaluated: TRAFFIC.length, errors: 0, disagreements: changed.length, transitions: expectedTransitions });
    expect(report).toMatchObject({ total: TRAFFIC.length, changed: changed.length, truncated: false, skipped: { oversize: 0, unreadable: 0 } });

    // The two agree hook by hook: the same ids, and each with the same transition.
    const shadowHooks = Object.fromEntries(shadow.examples.map((e) => [e.hook_id, transitionName(e.live, e.shadow)]));
    const replayHooks = Object.fromEntries(report.examples.map((e) => [e.hook_id, transitionName(replayOutcomeOf(e.before), replayOutcomeOf(e.after))]));
    expect(shadowHooks).toEqual(replayHooks);
    expect(replayHooks).toEqual(Object.fromEntries(changed.map((hook) => [hook.hookId, hook.change])));
    expect(Object.fromEntries(report.transitions.map((t) => [transitionName(t.from, t.to), t.count]))).toEqual(shadow.transitions);

    // Per rule, the rule each change is attributed to counts the same disagreements in both…
    for (const rule of report.by_rule) {
      const counted = shadow.rules.find((r) => r.rule === rule.rule);
      expect({ rule: rule.rule, disagreements: counted?.disagreements, transitions: counted?.transitions }).toEqual({
        rule: rule.rule,
        disagreements: rule.changed,
        transitions: Object.fromEntries(rule.transitions.map((t) => [transitionName(t.from, t.to), t.count])),
      });
    }
    // And the other way: no rule of the shadow counts disagreements the replay charges to no rule.
    const rulesWithChanges = ['guard/no-force-push', 'guard/no-publish', 'guard/pipe-to-shell', 'guard/rm-ladder'];
    expect(report.by_rule.map((r) => r.rule).sort()).toEqual(rulesWithChanges);
    expect(
      shadow.rules
        .filter((r) => r.disagreements > 0)
        .map((r) => r.rule)
        .sort(),
    ).toEqual(rulesWithChanges);
  });
});
