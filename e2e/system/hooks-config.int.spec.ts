// Starts: a private Redis, one gateway process and two oracle-worker processes (with the slow-test
// oracle plugin, so jobs can be held in flight); agents use the SDK; configurations are published
// with the built `ahp` CLI or through the config store, as the operator API will.
//
// docs/spec/escalation-and-context.md#worked-example end to end, its log (docs/spec/signal-log.md#signal-log-lines), escalation
// (docs/spec/escalation-and-context.md#progressive-intervention) across two workers, context sensitivity (the environment from each agent's token), hot reload while events are in flight,
// and invalid configurations.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignalLogLineSchema, type HookDecision, type JsonObject } from '@ahp/protocol';
import { connect, type AhpClient, type HookResult } from '@ahp/sdk';
import { exportSignalLog, createKeys } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allWorkersServe, configStore, publishThroughStore, runAhp, serviceLog } from './config-support.js';
import { SLOW_ORACLE_PLUGIN, slowJobPids, startSystem, type System } from './harness.js';

/** The repository's example configuration (docs/spec/escalation-and-context.md#worked-example), as `npm start` publishes it. */
const EXAMPLE_CONFIG = fileURLToPath(new URL('../../.ahp/hooks.yaml', import.meta.url));

/** docs/spec/escalation-and-context.md#context-sensitivity: the same rule, a different threshold and intensity in production. */
const CONTEXT_SENSITIVE = `version: 1
environment: development
hooks:
  pre-issue-submit:
    oracles:
      - name: change-size-limiter
        use: rules
        rules:
          - id: change-size
            condition: "files.changed_count > params.threshold"
            params: { threshold: 30 }
            intensity: prompt
            message: "{{ files.changed_count }} files changed (limit {{ params.threshold }} in {{ env }})"
            overrides:
              - when: 'env == "production"'
                params: { threshold: 10 }
                intensity: block
                resolution_path: ["split the change into parts of at most {{ params.threshold }} files"]
`;

/** The same rule in CEL (lang: cel), with a CEL tool rule: conditions evaluated by @bufbuild/cel inside the workers. */
const CONTEXT_SENSITIVE_CEL = `version: 1
environment: development
lang: cel
hooks:
  pre-issue-submit:
    oracles:
      - name: change-size-limiter
        use: rules
        rules:
          - id: change-size
            condition: "files.changed_count > params.threshold"
            params: { threshold: 30 }
            intensity: prompt
            message: "{{ files.changed_count }} files changed (limit {{ params.threshold }} in {{ env }})"
            overrides:
              - when: 'env == "production"'
                params: { threshold: 10 }
                intensity: block
                resolution_path: ["split the change into parts of at most {{ params.threshold }} files"]
  pre-tool-use:
    oracles:
      - name: shell-guard
        use: rules
        rules:
          - id: no-sudo
            condition: 'tool.name.lowerAscii() in ["bash", "sh"] && tool.input.command.matches(r"(^|[;&|]\\s*)sudo\\s")'
            intensity: block
            message: "no sudo: {{ tool.input.command }}"
`;
/** docs/spec/escalation-and-context.md#progressive-intervention: prompt, then control, then block for consecutive violations; slow-test holds each job. */
const ESCALATION = `version: 1
hooks:
  pre-issue-submit:
    oracles:
      - name: slow-test
      - name: test-gate
        use: rules
        rules:
          - id: failing-tests
            condition: "tests.failed_count > 0"
            escalation: [prompt, control, block]
            message: "{{ tests.failed_count }} tests fail"
            action: { type: set, target: run_tests, value: true }
            resolution_path: ["fix the failing tests"]
`;

/** The breakers of docs/spec/circuit-breakers.md#server-side-breakers with small limits: more than 3 identical tool calls, more than 4 iterations. */
const BREAKERS = `version: 1
hooks:
  pre-tool-use:
    oracles:
      - name: circuit-breaker
        options: { max_identical_tool_calls: 3, max_iterations: 4, ttl: 10m }
`;

/** A configuration that says which one it is in every signal; slow-test holds jobs in flight. */
const probe = (name: string) => `version: 1
hooks:
  pre-issue-submit:
    oracles:
      - name: slow-test
      - name: version-probe
        use: rules
        rules:
          - id: probe
            condition: "true"
            intensity: prompt
            message: "evaluated by configuration ${name}"
`;

const intensities = (results: readonly HookResult[]) => results.map((r) => r.intensity ?? 'none').sort();

/**
 * Answers the block and control signals of `result`, as a well-behaved agent does: left
 * unanswered past their grace (30 s), they would hold the agent's later hooks in every session
 * (E_SIGNAL_UNANSWERED) — in a later test, on a slow machine.
 */
async function answerSignals(client: AhpClient, result: HookResult): Promise<void> {
  for (const signal of result.signals) {
    if (signal.header.intensity === 'block') await client.respond(signal, 'abort');
    else if (signal.header.intensity === 'control') await client.respond(signal, 'reject_modification');
  }
}

describe('hooks configuration: versions in Redis, hot reload, counters and the signal log (gateway + 2 worker processes)', () => {
  let system: System;
  let alice: AhpClient;
  let bob: AhpClient;
  let carol: AhpClient;
  let dana: AhpClient;
  let erin: AhpClient;
  let work: string;

  beforeAll(async () => {
    system = await startSystem({
      name: 'hooks-config',
      gateways: 1,
      workers: 2,
      agents: [
        { id: 'alice', name: 'Alice' },
        { id: 'bob', name: 'Bob' },
        { id: 'carol', name: 'Carol' },
        { id: 'dana', name: 'Dana', environment: 'production' },
        { id: 'erin', name: 'Erin', environment: 'staging' },
      ],
      workerEnv: {
        AHP_ORACLE_PLUGINS: SLOW_ORACLE_PLUGIN,
        AHP_WORKER_CONCURRENCY: '2',
        AHP_CONFIG_RECHECK_MS: '500',
        AHP_ORACLE_BUDGET_MS: '5000',
      },
    });
    work = await mkdtemp(join(system.dir, 'work-'));
    const open = (id: string) => connect({ url: system.stack.gatewayUrls(), token: system.token(id) });
    [alice, bob, carol, dana, erin] = await Promise.all([open('alice'), open('bob'), open('carol'), open('dana'), open('erin')]);
  });

  afterAll(async () => {
    for (const client of [alice, bob, carol, dana, erin]) client?.close();
    await system?.stop();
  });

  it('runs the built-in defaults, without a version, while nothing is published', async () => {
    const result = await alice.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'rm -rf /' } } });
    expect(result).toMatchObject({ allowed: false, intensity: 'block' });
    expect(result.decision.config_version).toBeUndefined();
    await answerSignals(alice, result);
  });

  it('docs/spec/escalation-and-context.md#worked-example end to end: block with a resolution path, then a prompt for 25 files, then aid; the answers and the JSONL log (docs/spec/signal-log.md#signal-log-lines)', async () => {
    const started = new Date().toISOString();
    const published = await runAhp(system, ['config', 'publish', EXAMPLE_CONFIG, '--by', 'e2e']);
    expect(published).toMatchObject({ code: 0, stdout: expect.stringMatching(/^published version 1 /) });
    await allWorkersServe(system, 1);
    const changed = Array.from({ length: 25 }, (_, i) => `src/feature/file-${i}.ts`);
    const passing = { tests: { failed_count: 0 }, coverage: { current: 91, threshold: 80 } };

    // 1. Checklist 2/3 done: blocked, with the way out.
    const first = await alice.hook('pre-issue-submit', {
      issue: { id: 'FEAT-0123' },
      checklist: {
        items: [
          { id: 'chk-001', title: '设计数据库 Schema', done: true },
          { id: 'chk-002', title: '实现登录 API', done: true },
          { id: 'chk-003', title: 'API 文档', done: false },
        ],
      },
      files: { changed },
      ...passing,
    });
    expect(first.allowed).toBe(false);
    if (first.allowed) return;
    expect(first.block.source).toBe('checklist-validator');
    expect(first.block.reason).toContain('chk-003');
    expect(first.block.resolvable).toBe(true);
    expect(first.block.resolutionPath.some((step) => step.includes('chk-003') && step.includes('API 文档'))).toBe(true);
    expect(first.signals).toHaveLength(1); // a block is final: the size limiter was not consulted
    expect(first.decision.config_version).toBe(1);
    await alice.respond(first.block.signal!, 'retry_after_fix', { fixed: 'chk-003' });

    // 2. Fixed: the checklist passes, the 25 changed files draw the size limiter's prompt.
    const second = await alice.hook('pre-issue-submit', {
      issue: { id: 'FEAT-0123' },
      checklist: { items: ['chk-001', 'chk-002', 'chk-003'].map((id) => ({ id, done: true })) },
      files: { changed },
      ...passing,
    });
    expect(second).toMatchObject({ allowed: true, intensity: 'prompt' });
    expect(second.signals.map((s) => s.header.source)).toEqual(['change-size-limiter']);
    expect(second.warnings[0]).toContain('25');
    await alice.respond(second.signals[0]!, 'acknowledge');

    // 3. Submitted: the review hook aids.
    const third = await alice.hook('post-issue-submit', { issue: { id: 'FEAT-0123', status: 'review' } });
    expect(third).toMatchObject({ allowed: true, intensity: 'aid' });
    expect(third.signals.map((s) => s.header.source)).toEqual(['notification']);
    await alice.respond(third.signals[0]!, 'suggestion_applied');

    // The log, exported with the CLI: one line per signal, the six fields of
    // docs/spec/signal-log.md#signal-log-lines first, then ours.
    const out = join(work, 'alice.jsonl');
    const exported = await runAhp(system, ['log', 'export', '--agent', 'alice', '--since', started, '--out', out]);
    expect(exported).toMatchObject({ code: 0, stderr: expect.stringContaining(`3 signals written to ${out}`) });
    const lines = (await readFile(out, 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((l) => [l['hook'], l['intensity'], l['source'], l['consumed'], l['action']])).toEqual([
      ['pre-issue-submit', 'block', 'checklist-validator', true, 'retry_after_fix'],
      ['pre-issue-submit', 'prompt', 'change-size-limiter', true, 'acknowledge'],
      ['post-issue-submit', 'aid', 'notification', true, 'suggestion_applied'],
    ]);
    const results = [first, second, third];
    lines.forEach((line, i) => {
      expect(Object.keys(line).slice(0, 6)).toEqual(['timestamp', 'hook', 'intensity', 'source', 'consumed', 'action']);
      expect(SignalLogLineSchema.safeParse(line).success).toBe(true);
      expect(line).toMatchObject({
        signal_id: results[i]!.signals[0]!.header.id,
        correlation_id: results[i]!.hookId,
        config_version: 1,
        agent_id: 'alice',
        session_id: alice.sessionId,
        latency_ms: expect.any(Number),
      });
    });
    expect(lines.every((l) => typeof l['rule'] === 'string')).toBe(true);
    expect(Date.parse(String(lines[0]!['timestamp']))).toBeLessThan(Date.parse(String(lines[2]!['timestamp'])));

    // The statistics say how the block ended.
    const stats = await runAhp(system, ['log', 'stats', '--agent', 'alice', '--since', started, '--json']);
    expect(stats.code).toBe(0);
    const parsed = JSON.parse(stats.stdout) as { total: { signals: number; consumed: number }; by_action: Record<string, { count: number; share: number }> };
    expect(parsed.total).toMatchObject({ signals: 3, consumed: 3 });
    expect(parsed.by_action['retry_after_fix']).toMatchObject({ count: 1, share: 1 });
  });

  it('context sensitivity (docs/spec/escalation-and-context.md#context-sensitivity): the same rule blocks above 10 files in production and prompts above 30 elsewhere; the environment is the token\'s', async () => {
    const version = await publishThroughStore(system, CONTEXT_SENSITIVE);
    await allWorkersServe(system, version);
    const submit = (client: AhpClient, context: JsonObject) => client.hook('pre-issue-submit', context);

    // dana's token says production.
    const production = await submit(dana, { files: { changed_count: 25 } });
    expect(production).toMatchObject({ allowed: false, intensity: 'block' });
    if (!production.allowed) expect(production.block.resolutionPath).toEqual(['split the change into parts of at most 10 files']);
    expect(await submit(dana, { files: { changed_count: 5 } })).toMatchObject({ allowed: true, intensity: null });
    // Claiming another environment changes nothing: refused at the top level, ignored under extra.
    await expect(submit(dana, { environment: 'development', files: { changed_count: 25 } })).rejects.toMatchObject({ code: 'E_INVALID_CONTEXT' });
    const underExtra = await submit(dana, { files: { changed_count: 25 }, extra: { environment: 'development' } });
    expect(underExtra).toMatchObject({ allowed: false, intensity: 'block' });
    await answerSignals(dana, production);
    await answerSignals(dana, underExtra);

    // erin's token says staging.
    expect(await submit(erin, { files: { changed_count: 25 } })).toMatchObject({ allowed: true, intensity: null });
    expect(await submit(erin, { files: { changed_count: 35 } })).toMatchObject({
      allowed: true,
      intensity: 'prompt',
      warnings: ['35 files changed (limit 30 in staging)'],
    });
    // No environment in the token: the configuration's default (development).
    expect(await submit(carol, { files: { changed_count: 31 } })).toMatchObject({ intensity: 'prompt', warnings: ['31 files changed (limit 30 in development)'] });
    expect(production.decision.config_version).toBe(version);
  });

  it('CEL conditions (lang: cel) decide in the workers as the native ones do, and fail closed on an absent field', async () => {
    const version = await publishThroughStore(system, CONTEXT_SENSITIVE_CEL);
    await allWorkersServe(system, version);
    const submit = (client: AhpClient, context: JsonObject) => client.hook('pre-issue-submit', context);
    const production = await submit(dana, { files: { changed_count: 25 } });
    expect(production).toMatchObject({ allowed: false, intensity: 'block' });
    if (!production.allowed) expect(production.block.resolutionPath).toEqual(['split the change into parts of at most 10 files']);
    await answerSignals(dana, production);
    expect(await submit(erin, { files: { changed_count: 35 } })).toMatchObject({ allowed: true, intensity: 'prompt', warnings: ['35 files changed (limit 30 in staging)'] });
    expect(await submit(carol, { files: { changed_count: 5 } })).toMatchObject({ allowed: true, intensity: null });
    const sudo = await carol.hook('pre-tool-use', { tool: { name: 'Bash', input: { command: 'cd /srv && sudo rm -rf cache' } } });
    expect(sudo).toMatchObject({ allowed: false, intensity: 'block' });
    await answerSignals(carol, sudo);
    expect(await carol.hook('pre-tool-use', { tool: { name: 'Bash', input: { command: 'ls -la' } } })).toMatchObject({ allowed: true, intensity: null });
    // The rule reads tool.input.command, which this call lacks: the pre-tool-use hook fails closed.
    const absent = await carol.hook('pre-tool-use', { tool: { name: 'Bash', input: {} } });
    expect(absent).toMatchObject({ allowed: false, intensity: 'block' });
    expect(absent.decision).toMatchObject({ decided_by: 'failure_policy', error: { code: 'E_INVALID_CONTEXT' } });
    expect(production.decision.config_version).toBe(version);
  });

  it('escalation (docs/spec/escalation-and-context.md#progressive-intervention): concurrent violations of one agent, evaluated by both workers at once, count once each', async () => {
    const version = await publishThroughStore(system, ESCALATION, { plugins: [SLOW_ORACLE_PLUGIN] });
    await allWorkersServe(system, version);
    const markers = await mkdtemp(join(work, 'slow-'));
    const failing = { tests: { failed_count: 3 }, extra: { slow: { ms: 300, marker_dir: markers } } };

    // Eight at once; each worker evaluates two at a time and holds each job 300 ms, so both work on them.
    const burst = await Promise.all(Array.from({ length: 8 }, () => bob.hook('pre-issue-submit', failing)));
    expect(intensities(burst)).toEqual(['block', 'block', 'block', 'block', 'block', 'block', 'control', 'prompt']);
    expect((await slowJobPids(markers)).sort()).toEqual(system.stack.workers.map((w) => w.pid).sort());
    const control = burst.find((r) => r.intensity === 'control')!;
    expect(control.modifications).toEqual([expect.objectContaining({ target: 'run_tests', updated: true })]);
    expect(burst.every((r) => r.decision.config_version === version)).toBe(true);
    for (const result of burst) await answerSignals(bob, result);

    // The ladder is per agent, and a compliant attempt starts it again.
    expect((await alice.hook('pre-issue-submit', { tests: { failed_count: 1 } })).intensity).toBe('prompt');
    expect(await bob.hook('pre-issue-submit', { tests: { failed_count: 0 } })).toMatchObject({ allowed: true, intensity: null });
    expect((await bob.hook('pre-issue-submit', { tests: { failed_count: 1 } })).intensity).toBe('prompt');
    expect((await bob.hook('pre-issue-submit', { tests: { failed_count: 1 } })).intensity).toBe('control');

    // A re-sent hook (same id) is answered with its first decision and does not count again.
    const again = await bob.hook('pre-issue-submit', { tests: { failed_count: 1 } }, { hookId: control.hookId });
    expect(again.decision).toEqual(control.decision);
    expect((await bob.hook('pre-issue-submit', { tests: { failed_count: 1 } })).intensity).toBe('block');
  });

  it('hot reload: a version published while hooks are in flight; every decision names the version that produced it', async () => {
    const a = await publishThroughStore(system, probe('A'), { plugins: [SLOW_ORACLE_PLUGIN] });
    await allWorkersServe(system, a);
    const markers = await mkdtemp(join(work, 'inflight-'));
    const held = { extra: { slow: { ms: 600, marker_dir: markers } } };

    const inFlight = Array.from({ length: 6 }, () => carol.hook('pre-issue-submit', held));
    // Publish once jobs are being evaluated on both workers.
    await expectEventually(async () => (await slowJobPids(markers)).length === 2);
    const b = await publishThroughStore(system, probe('B'), { plugins: [SLOW_ORACLE_PLUGIN] });
    expect(b).toBe(a + 1);
    await allWorkersServe(system, b);
    const after = await Promise.all(Array.from({ length: 4 }, () => carol.hook('pre-issue-submit', {})));
    const before = await Promise.all(inFlight);

    const versionOf = (decision: HookDecision) => decision.config_version;
    const says = (result: HookResult) => /configuration (\w)$/.exec(result.warnings[0] ?? '')?.[1];
    for (const result of [...before, ...after]) {
      const expected = versionOf(result.decision) === a ? 'A' : versionOf(result.decision) === b ? 'B' : 'neither';
      expect(says(result)).toBe(expected);
      expect(result.signals.every((s) => s.context['config_version'] === versionOf(result.decision))).toBe(true);
    }
    // The jobs running when B was published (one per worker at least) finished under A; everything after the swap is B.
    expect(before.filter((r) => versionOf(r.decision) === a).length).toBeGreaterThanOrEqual(2);
    expect(after.map((r) => versionOf(r.decision))).toEqual([b, b, b, b]);

    // The log records the version of each signal too.
    const exported = await exportSignalLog(system.redis, createKeys({ prefix: system.keyPrefix }), { filter: { agent_id: 'carol', source: 'version-probe' } });
    const bySignal = new Map(exported.lines.map((line) => [line.signal_id, line.config_version]));
    for (const result of [...before, ...after]) expect(bySignal.get(result.signals[0]!.header.id)).toBe(versionOf(result.decision));
  });

  it('rejects an invalid file with line, column and field, and the workers keep serving the last good version', async () => {
    const good = (await configStore(system).currentVersion())!;
    const bad = join(work, 'bad.yaml');
    await writeFile(
      bad,
      `version: 1
hooks:
  pre-issue-submit:
    oracles:
      - name: checklist-validator
        use: rules
        rules:
          - condition: "checklist.incomplete_count >"
            intensity: block
`,
    );
    const validated = await runAhp(system, ['config', 'validate', bad]);
    expect(validated.code).toBe(1);
    expect(validated.stdout).toMatch(new RegExp(`^${escape(bad)}:8:\\d+ hooks\\.pre-issue-submit\\.oracles\\[0\\]\\.rules\\[0\\]\\.condition: `, 'm'));

    const published = await runAhp(system, ['config', 'publish', bad]);
    expect(published.code).toBe(1);
    expect(published.stderr).toContain('not published');
    expect(await configStore(system).currentVersion()).toBe(good);

    // A version that passes the schema but that the workers cannot compile (an oracle nobody
    // provides), published behind the CLI's back: logged loudly, the last good one keeps serving.
    const unusable = `version: 1
hooks:
  pre-issue-submit:
    oracles:
      - name: gate
        use: acme/not-installed
`;
    const parsed = { version: 1, hooks: { 'pre-issue-submit': { oracles: [{ name: 'gate', use: 'acme/not-installed' }] } } };
    const { version: broken } = await configStore(system).publish({ source: unusable, config: parsed, publishedBy: 'e2e', now: Date.now() });
    expect(broken).toBe(good + 1);
    await expectEventually(async () => {
      const logs = await Promise.all(system.stack.workers.map((w) => serviceLog(system, w.name)));
      return logs.every((log) => log.includes(`"hooks configuration version ${broken} cannot be used; still serving version ${good}"`));
    });
    const still = await carol.hook('pre-issue-submit', {});
    expect(still.decision.config_version).toBe(good);
    expect(still.warnings).toEqual(['evaluated by configuration B']);
  });

  it('circuit breakers (docs/spec/circuit-breakers.md#server-side-breakers) count per agent on the server, across both workers; a new session does not reset them', async () => {
    const version = await publishThroughStore(system, BREAKERS);
    await allWorkersServe(system, version);
    const session = await connect({ url: system.stack.gatewayUrls(), token: system.token('carol') });
    try {
      const call = { tool: { name: 'bash', input: { command: 'npm test' } } };
      const burst = await Promise.all(Array.from({ length: 5 }, () => session.hook('pre-tool-use', call)));
      expect(intensities(burst)).toEqual(['block', 'block', 'none', 'none', 'none']);
      const blocked = burst.find((r) => !r.allowed);
      if (blocked?.allowed === false) expect(blocked.block.reason).toMatch(/^E_STUTTERING: /);
      // Another session of the same agent (a restart) is still refused; another agent starts from zero.
      const again = await carol.hook('pre-tool-use', call);
      expect(again.allowed).toBe(false);
      if (!again.allowed) expect(again.block.reason).toMatch(/^E_STUTTERING: /);
      expect((await erin.hook('pre-tool-use', call)).allowed).toBe(true);

      const iterations = [];
      for (let iteration = 1; iteration <= 5; iteration += 1) {
        iterations.push(await session.hook('pre-tool-use', { tool: { name: 'bash', input: { command: `ls ${iteration}` } }, loop: { iteration } }));
      }
      expect(iterations.map((r) => r.allowed)).toEqual([true, true, true, true, false]);
      const last = iterations[4]!;
      if (!last.allowed) expect(last.block.reason).toMatch(/^MAX_ITER: /);

      // The agent restarts (a new connection, a new session, its loop from iteration 1): still stopped.
      const restarted = await connect({ url: system.stack.gatewayUrls(), token: system.token('carol') });
      try {
        const first = await restarted.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'ls again' } }, loop: { iteration: 1 } });
        expect(first.allowed).toBe(false);
        if (!first.allowed) expect(first.block.reason).toMatch(/^MAX_ITER: /);
      } finally {
        restarted.close();
      }
    } finally {
      session.close();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function expectEventually(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

