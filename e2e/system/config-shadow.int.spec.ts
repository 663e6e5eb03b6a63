// Shadow mode end to end (docs/hooks.md, "Shadow a configuration"): a private Redis (or Cluster),
// one gateway and two oracle-worker processes, SDK agents. An admin sets a shadow that blocks
// `git push --force`; agents' traffic is decided by the live version only; the disagreements the
// workers record are exactly the force pushes (read through the API and the `ahp shadow` CLI);
// promote and drop (the CLI's too) are audited; a viewer reads but
// cannot act (its 403 comes before the route, so like every such refusal it is not in the audit trail).
import { ShadowStatusResponseSchema, type AuditListResponse, type JsonObject } from '@ahp/protocol';
import { connect, type AhpClient } from '@ahp/sdk';
import { createKeys, createShadowConfigStore } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { allWorkersServe, allWorkersShadow, NO_FORCE_PUSH_CONFIG, NO_SUDO_CONFIG, runAhp, serviceLog, startConfigSystem, type ConfigSystem } from './config-support.js';
import { eventually, type System } from './harness.js';
import { operatorCall, type OperatorTokens } from './team-support.js';

const LIVE = NO_SUDO_CONFIG;
const SHADOW = NO_FORCE_PUSH_CONFIG;

const bash = (command: string) => ({ tool: { name: 'bash', input: { command } } });

describe('shadow configuration: evaluated beside the live one, disagreements recorded, promote and drop audited', () => {
  let started: ConfigSystem | undefined;
  let system: System;
  let operators: OperatorTokens;
  let api: string;
  let ada: AhpClient;
  let bo: AhpClient;

  const admin = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => operatorCall(api, operators.token('op-root'), method, path, body);
  const gatewayHttp = () => `http://127.0.0.1:${String(system.stack.gateways[0]!.ready['port'])}`;
  const viewer = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => operatorCall(api, operators.token('op-vic'), method, path, body);

  beforeAll(async () => {
    started = await startConfigSystem({
      operators: [
        { id: 'op-root', name: 'Root', role: 'admin' },
        { id: 'op-vic', name: 'Vic', role: 'viewer' },
      ],
      live: LIVE,
      name: 'config-shadow',
      workers: 2,
      agents: [
        { id: 'ada', name: 'Ada' },
        { id: 'bo', name: 'Bo' },
      ],
      workerEnv: { AHP_CONFIG_RECHECK_MS: '500' },
    });
    ({ system, operators, api } = started);
    [ada, bo] = await Promise.all([connect({ url: system.stack.gatewayUrls(), token: system.token('ada') }), connect({ url: system.stack.gatewayUrls(), token: system.token('bo') })]);
  });

  afterAll(async () => {
    await ada?.close();
    await bo?.close();
    await started?.stop();
  });

  it('records exactly the hooks where the shadow would decide otherwise, and never changes a live decision', async () => {
    expect((await viewer('GET', '/config/shadow')).status).toBe(404);
    const refused = await viewer('POST', '/config/shadow', { source: SHADOW });
    expect(refused.status).toBe(403);
    const invalid = await admin('POST', '/config/shadow', { source: `${LIVE}          - id: broken\n            condition: 'tool.input.command matches'\n            intensity: block\n` });
    expect(invalid.status).toBe(400);
    expect((invalid.json as { error: { code: string } }).error.code).toBe('E_INVALID_FRAME');

    const set = await admin('POST', '/config/shadow', { source: SHADOW });
    expect(set.status).toBe(201);
    expect(set.json).toMatchObject({ shadow: 1, unchanged: false });
    await allWorkersShadow(system, 1);

    const traffic: [AhpClient, string][] = [
      [ada, 'ls -la'],
      [ada, 'git push --force origin main'],
      [bo, 'git push --force-with-lease origin main'],
      [bo, 'sudo git push -f origin main'],
      [bo, 'rm notes.txt'],
      [ada, 'git push -f'],
      [bo, 'git status'],
      [bo, 'git push origin main --force'],
    ];
    const results = [];
    for (const [client, command] of traffic) results.push({ command, agent: client === ada ? 'ada' : 'bo', result: await client.hook('pre-tool-use', bash(command)) });
    // The live version decided every hook: force pushes went through.
    expect(results.map((r) => [r.command, r.result.intensity ?? 'allow'])).toEqual([
      ['ls -la', 'allow'],
      ['git push --force origin main', 'allow'],
      ['git push --force-with-lease origin main', 'allow'],
      ['sudo git push -f origin main', 'block'],
      ['rm notes.txt', 'allow'],
      ['git push -f', 'allow'],
      ['git status', 'allow'],
      ['git push origin main --force', 'allow'],
    ]);
    expect(results.every((r) => r.result.decision.config_version === 1)).toBe(true);

    // Forced pushes the live version allowed: exactly where the shadow disagrees. The sudo one is blocked by both.
    const expected = results.filter((r) => ['git push --force origin main', 'git push -f', 'git push origin main --force'].includes(r.command));
    const status = await eventually(
      async () => {
        const read = await viewer('GET', '/config/shadow');
        const parsed = ShadowStatusResponseSchema.parse(read.json);
        return parsed.evaluated === traffic.length ? parsed : undefined;
      },
      'every hook to be shadowed',
    );
    expect(status).toMatchObject({ shadow: 1, published_by: 'op-root', live_version: 1, evaluated: 8, disagreements: 3, errors: 0, skipped_busy: 0, transitions: { 'allow→block': 3 } });
    expect(status.source).toBe(SHADOW);
    expect(status.examples.map((e) => e.hook_id).sort()).toEqual(expected.map((r) => r.result.hookId).sort());
    for (const example of status.examples) {
      const sent = expected.find((r) => r.result.hookId === example.hook_id);
      expect(example).toMatchObject({ agent_id: sent?.agent, trigger: 'pre-tool-use', live: 'allow', shadow: 'block', live_version: 1, rules: ['shell/no-force-push'] });
    }
    expect(status.rules).toEqual([
      { rule: 'shell/no-force-push', fired: 4, disagreements: 3, transitions: { 'allow→block': 3 } },
      { rule: 'shell/no-sudo', fired: 1, disagreements: 0, transitions: {} },
    ]);

    // The CLI reads the same through the operator API, with a viewer's token.
    const cli = await runAhp(system, ['shadow', 'status', '--gateway', gatewayHttp()], { AHP_OPERATOR_TOKEN: operators.token('op-vic') });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('8 hooks evaluated, 3 disagreements (37.5%), 0 errors; allow→block 3');
    expect(cli.stdout).toMatch(/shell\/no-force-push\s+4\s+3\s+37\.5%\s+allow→block 3/);
    const json = await runAhp(system, ['shadow', 'status', '--json', '--gateway', gatewayHttp()], { AHP_OPERATOR_TOKEN: operators.token('op-vic') });
    expect(ShadowStatusResponseSchema.parse(JSON.parse(json.stdout))).toEqual(status);

    // Hooks a busy worker did not shadow (counted as the workers count them): the CLI says the rate leaves them out.
    expect(await createShadowConfigStore({ redis: system.redis, keys: createKeys({ prefix: system.keyPrefix }) }).recordSkipped(1, 2)).toBe(true);
    const busy = await runAhp(system, ['shadow', 'status', '--gateway', gatewayHttp()], { AHP_OPERATOR_TOKEN: operators.token('op-vic') });
    expect(busy.stdout).toContain('8 hooks evaluated, 3 disagreements (37.5%), 0 errors; allow→block 3\n2 hooks not shadowed (20.0% of the traffic)');
  });

  it('a viewer cannot promote or drop; an admin promotes it into a new live version the workers then serve, audited', async () => {
    const byViewer = await viewer('POST', '/config/shadow/promote', { shadow: 1 });
    expect(byViewer.status).toBe(403);
    expect((byViewer.json as { error: { code: string } }).error.code).toBe('E_FORBIDDEN');
    expect((await viewer('DELETE', '/config/shadow?shadow=1')).status).toBe(403);
    expect(await viewer('GET', '/config/shadow')).toMatchObject({ status: 200, json: { shadow: 1 } });
    expect(await viewer('GET', '/config')).toMatchObject({ status: 200, json: { version: 1 } });
    // A stale view: promoting a shadow that is not the current one is refused.
    expect((await admin('POST', '/config/shadow/promote', { shadow: 9 })).status).toBe(409);

    const promoted = await admin('POST', '/config/shadow/promote', { shadow: 1 });
    expect(promoted).toEqual({ status: 200, json: { shadow: 1, version: 2, unchanged: false } });
    expect(await admin('GET', '/config')).toMatchObject({ status: 200, json: { version: 2, published_by: 'op-root', source: SHADOW } });
    expect((await admin('GET', '/config/shadow')).status).toBe(404);
    await allWorkersServe(system, 2);
    const forced = await ada.hook('pre-tool-use', bash('git push --force origin main'));
    expect(forced.allowed).toBe(false);

    const audit = await admin('GET', '/audit?limit=50');
    const entries = (audit.json as AuditListResponse).entries.map((e) => ({ operator: e.operator.id, action: e.action, outcome: e.outcome, details: e.details as JsonObject | undefined }));
    // A viewer's 403 is refused before the route and changes nothing, so it is not in the trail (docs/operator-api.md, "Audit trail").
    expect(entries.filter((e) => e.action.startsWith('config.shadow')).reverse()).toEqual([
      { operator: 'op-root', action: 'config.shadow', outcome: 'refused', details: expect.objectContaining({ error_code: 'E_INVALID_FRAME', issue_count: 1 }) },
      { operator: 'op-root', action: 'config.shadow', outcome: 'applied', details: expect.objectContaining({ shadow: 1 }) },
      { operator: 'op-root', action: 'config.shadow.promote', outcome: 'refused', details: expect.objectContaining({ error_code: 'E_CONFLICT' }) },
      { operator: 'op-root', action: 'config.shadow.promote', outcome: 'applied', details: { shadow: 1, version: 2 } },
    ]);
  });

  it('an admin sets and drops a shadow with the CLI: workers stop evaluating it and the drop is audited', async () => {
    const asAdmin = { AHP_OPERATOR_TOKEN: operators.token('op-root') };
    const broken = join(system.dir, 'broken.yaml');
    await writeFile(broken, 'version: 1\nhooks:\n  pre-tool-use:\n    oracles:\n      - name: x\n        use: acme/missing\n');
    const refused = await runAhp(system, ['shadow', 'set', broken, '--gateway', gatewayHttp()], asAdmin);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/broken\.yaml:6:\d+ hooks\.pre-tool-use\.oracles\[0\]\.use: /);
    const candidate = join(system.dir, 'candidate.yaml');
    await writeFile(candidate, LIVE);
    const set = await runAhp(system, ['shadow', 'set', candidate, '--gateway', gatewayHttp()], asAdmin);
    expect([set.code, set.stdout]).toEqual([0, 'shadow 2 set; workers evaluate it beside the live version\n']);
    await allWorkersShadow(system, 2);
    const stale = await runAhp(system, ['shadow', 'drop', '--shadow', '1', '--gateway', gatewayHttp()], asAdmin);
    expect([stale.code, stale.stderr]).toEqual([1, expect.stringContaining('E_CONFLICT')]);
    const dropped = await runAhp(system, ['shadow', 'drop', '--shadow', '2', '--gateway', gatewayHttp()], asAdmin);
    expect([dropped.code, dropped.stdout]).toEqual([0, 'shadow 2 dropped\n']);
    expect((await admin('DELETE', '/config/shadow')).status).toBe(404);
    await eventually(
      async () => {
        for (const worker of system.stack.workers) {
          if (!(await serviceLog(system, worker.name)).includes('"shadow configuration 2 no longer evaluated"')) return undefined;
        }
        return true;
      },
      'every worker to stop evaluating shadow 2',
    );
    const audit = await admin('GET', '/audit?action=config.shadow.drop&limit=10');
    expect((audit.json as AuditListResponse).entries.map((e) => [e.operator.id, e.outcome, e.details])).toEqual([
      ['op-root', 'refused', expect.objectContaining({ error_code: 'E_NOT_FOUND' })],
      ['op-root', 'applied', { shadow: 2 }],
      ['op-root', 'refused', expect.objectContaining({ error_code: 'E_CONFLICT' })],
    ]);
  });
});
