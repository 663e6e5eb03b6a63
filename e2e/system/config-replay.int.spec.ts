// Starts: a private Redis (or its cluster), one gateway process (with operator tokens) and two
// oracle-worker processes. Agents use the SDK; the replay is asked for through the gateway's
// operator HTTP API and through the built `ahp` CLI.
//
// Replaying a candidate configuration end to end (docs/hooks.md, "Replay a candidate
// configuration"): the workers record the hooks they decide under the live configuration, and a
// candidate that blocks `git push --force` replayed over them reports exactly the force pushes,
// allow → block, per rule and per agent — and nothing else.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigReplayReportSchema, type ConfigReplayStatus, type JsonObject } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayLogHolds, replayThroughApi as replay, runAhp, startConfigSystem, type ConfigSystem } from './config-support.js';
import type { System } from './harness.js';
import type { OperatorTokens } from './team-support.js';

/** The live configuration: sudo is blocked, nothing else. */
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
`;

/** The candidate: the same, and no force pushes. */
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
            message: "no force push: {{ tool.input.command }}"
`;

const TRAFFIC: { agent: string; command: string; forcePush?: true }[] = [
  { agent: 'alice', command: 'git status' },
  { agent: 'alice', command: 'git push --force origin main', forcePush: true },
  { agent: 'bob', command: 'npm test' },
  { agent: 'alice', command: 'sudo rm -rf /tmp/x' },
  { agent: 'bob', command: 'git push origin feature' },
  { agent: 'bob', command: 'git push -f origin feature', forcePush: true },
  { agent: 'alice', command: 'git push --force-with-lease origin main' },
  { agent: 'bob', command: 'git push origin main --force', forcePush: true },
];

describe('configuration replay (gateway + 2 worker processes)', () => {
  let started: ConfigSystem | undefined;
  let system: System;
  let operators: OperatorTokens;
  let api: string;
  let since: string;
  const clients: AhpClient[] = [];
  /** Hook ids of the recorded traffic: all, and the force pushes. */
  const recorded: string[] = [];
  const forcePushes: string[] = [];

  beforeAll(async () => {
    started = await startConfigSystem({
      operators: [{ id: 'op-root', name: 'Root', role: 'admin' }],
      live: LIVE,
      name: 'config-replay',
      gateways: 1,
      workers: 2,
      agents: [
        { id: 'alice', name: 'Alice' },
        { id: 'bob', name: 'Bob' },
      ],
    });
    ({ system, operators, api } = started);
    since = new Date(Date.now() - 1000).toISOString();
    const agents: Record<string, AhpClient> = {};
    for (const id of ['alice', 'bob']) {
      const client = await connect({ url: system.stack.gatewayUrls()[0]!, token: system.token(id), reconnect: { initialDelayMs: 20, maxDelayMs: 200 } });
      clients.push(client);
      agents[id] = client;
    }
    for (const call of TRAFFIC) {
      const context: JsonObject = { tool: { name: 'bash', input: { command: call.command } } };
      const result = await agents[call.agent]!.hook('pre-tool-use', context);
      // Under the live configuration only sudo is blocked.
      expect(result.allowed).toBe(!call.command.startsWith('sudo'));
      recorded.push(result.hookId);
      if (call.forcePush) forcePushes.push(result.hookId);
    }
    await replayLogHolds(system, recorded, Date.parse(since), Date.now() + 1000);
  });

  afterAll(async () => {
    await Promise.allSettled(clients.map((client) => client.close()));
    await started?.stop();
  });

  const root = () => operators.token('op-root');

  const replayThroughApi = (body: JsonObject): Promise<ConfigReplayStatus> => replay(api, root(), body);

  /** The report of a replay that must complete (a failure shows its reason). */
  async function reportOf(body: JsonObject) {
    const status = await replayThroughApi(body);
    expect(status.error, 'the replay failed').toBeUndefined();
    return ConfigReplayReportSchema.parse(status.report);
  }

  it('reports exactly the force pushes as allow → block, per rule and per agent', async () => {
    const status = await replayThroughApi({ source: CANDIDATE, since, until: new Date(Date.now() + 1000).toISOString() });
    expect(status.error).toBeUndefined();
    expect(status).toMatchObject({ state: 'completed', requested_by: 'op-root', progress: { fraction: 1 } });
    const report = ConfigReplayReportSchema.parse(status.report);
    expect(report).toMatchObject({ total: TRAFFIC.length, changed: 3, unchanged: TRAFFIC.length - 3, skipped: { oversize: 0, unreadable: 0 }, truncated: false });
    expect(report.transitions).toEqual([{ from: 'allow', to: 'block', count: 3 }]);
    expect(report.examples.map((example) => example.hook_id).sort()).toEqual([...forcePushes].sort());
    for (const example of report.examples) expect(example).toMatchObject({ before: { level: 'allow', rules: [] }, after: { level: 'block', rules: ['guard/no-force-push'] }, config_version: 1 });
    expect(report.by_rule).toEqual([{ rule: 'guard/no-force-push', changed: 3, transitions: [{ from: 'allow', to: 'block', count: 3 }] }]);
    expect(report.by_agent).toEqual([
      { agent_id: 'bob', total: 4, changed: 2, transitions: [{ from: 'allow', to: 'block', count: 2 }] },
      { agent_id: 'alice', total: 4, changed: 1, transitions: [{ from: 'allow', to: 'block', count: 1 }] },
    ]);
    expect(report.recorded_versions).toEqual([{ version: 1, count: TRAFFIC.length }]);
    expect(report.oracle_errors).toEqual([]);
  });

  it('filters by agent, and replaying the live configuration changes nothing', async () => {
    const bob = await reportOf({ source: CANDIDATE, since, agent: 'bob' });
    expect(bob).toMatchObject({ total: 4, changed: 2 });
    const live = await reportOf({ source: LIVE, since });
    expect(live).toMatchObject({ total: TRAFFIC.length, changed: 0, transitions: [], examples: [] });
  });

  it('ahp config replay prints the same report, as text and as JSON', async () => {
    const file = join(system.dir, 'candidate.yaml');
    await writeFile(file, CANDIDATE);
    const env = { AHP_OPERATOR_TOKEN: root(), AHP_GATEWAY_URL: api.replace(/\/v1\/operator$/, '') };
    const text = await runAhp(system, ['config', 'replay', 'candidate.yaml', '--since', '1h', '--poll', '100'], env);
    expect(text.stderr).toContain('submitted');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`${TRAFFIC.length} hooks replayed: 3 would change`);
    expect(text.stdout).toMatch(/allow → block\s+3/);
    for (const call of TRAFFIC.filter((c) => c.forcePush)) expect(text.stdout).toContain(`bash: ${call.command}`);
    expect(text.stdout).not.toContain('--force-with-lease');

    // Narrowed to one agent (and one trigger): only Bob's hooks, only his force pushes.
    const json = await runAhp(system, ['config', 'replay', 'candidate.yaml', '--since', '1h', '--agent', 'bob', '--trigger', 'pre-tool-use', '--json', '--poll', '100'], env);
    expect(json.code).toBe(0);
    const report = ConfigReplayReportSchema.parse(JSON.parse(json.stdout));
    const bobs = TRAFFIC.flatMap((call, i) => (call.agent === 'bob' && call.forcePush ? [recorded[i]!] : []));
    expect(bobs).toHaveLength(2);
    expect(report).toMatchObject({ total: 4, changed: 2 });
    expect(report.by_agent.map((row) => row.agent_id)).toEqual(['bob']);
    expect(report.examples.map((example) => example.hook_id).sort()).toEqual([...bobs].sort());

    await writeFile(file, CANDIDATE.replace("matches /^sudo /'", "matches'"));
    const invalid = await runAhp(system, ['config', 'replay', 'candidate.yaml', '--since', '1h'], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toMatch(/^candidate\.yaml:9:\d+ hooks\.pre-tool-use\.oracles\[0\]\.rules\[0\]\.condition: /m);
  });
});
