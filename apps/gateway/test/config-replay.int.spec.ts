/**
 * `/v1/operator/config/replay` on a real gateway and the run's Redis, with no oracle worker: a
 * candidate is validated like a publish (400 with line numbers), a valid one becomes a waiting job
 * of the replay queue, which any gateway reports on and cancels; scoped tokens are refused.
 * (The replay itself, on a worker over recorded traffic: e2e/system/config-replay.int.spec.ts.)
 */
import { randomUUID } from 'node:crypto';
import { ConfigReplayStatusSchema, OperatorErrorBodySchema } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UNFINISHED_REPLAYS } from '../src/config-replay/config-replay.service.js';
import { newToken, startTestGateway, type TestGateway, type TestOperatorEntry } from './support/test-gateway.js';

const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-red', name: 'Red lead', role: 'admin', token: newToken(), scope: { teams: ['red'] } },
];
const CANDIDATE = [
  'hooks:',
  '  pre-tool-use:',
  '    oracles:',
  '      - name: shell',
  '        use: rules',
  '        rules:',
  '          - id: force-push',
  "            condition: 'tool.name == \"bash\" and tool.input.command matches /git push --force/'",
  '            intensity: block',
  '',
].join('\n');
/** Line 8 does not parse as an expression. */
const BROKEN = CANDIDATE.replace("matches /git push --force/'", "matches'");

let gw: TestGateway;
let other: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'config-replay', operators: OPERATORS });
  // A second gateway of the same deployment: replays live in Redis, not in one gateway.
  other = await startTestGateway({ keyPrefix: gw.keyPrefix, operators: OPERATORS });
});

afterAll(async () => {
  await other?.stop();
  await gw?.stop();
});

async function call(target: TestGateway, operator: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${target.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${target.httpUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

const since = () => new Date(Date.now() - 3_600_000).toISOString();

describe('operator API: configuration replay', () => {
  it('refuses a candidate that does not validate with 400 and its issues by line', async () => {
    const { status, json } = await call(gw, 'op-viv', 'POST', '/v1/operator/config/replay', { source: BROKEN, since: since() });
    expect(status).toBe(400);
    const error = OperatorErrorBodySchema.parse(json).error;
    expect(error.code).toBe('E_INVALID_FRAME');
    const issues = (error.details as { issues: { line: number; path: string }[] }).issues;
    expect(issues.length).toBeGreaterThan(0);
    expect(issues[0]).toMatchObject({ line: 8, path: 'hooks.pre-tool-use.oracles[0].rules[0].condition' });
  });

  it('refuses a request that does not parse, and a window that ends before it starts', async () => {
    const missing = await call(gw, 'op-viv', 'POST', '/v1/operator/config/replay', { source: CANDIDATE });
    expect(missing.status).toBe(400);
    const backwards = await call(gw, 'op-viv', 'POST', '/v1/operator/config/replay', { source: CANDIDATE, since: since(), until: new Date(Date.now() - 7_200_000).toISOString() });
    expect(backwards.status).toBe(400);
    expect(OperatorErrorBodySchema.parse(backwards.json).error.message).toContain('since must be before until');
  });

  it('submits a replay (202), reports it from any gateway, and cancels it while it waits', async () => {
    const submitted = await call(gw, 'op-viv', 'POST', '/v1/operator/config/replay', { source: CANDIDATE, since: since(), agent: 'alpha', trigger: 'pre-tool-use', limit: 50 });
    expect(submitted.status).toBe(202);
    const status = ConfigReplayStatusSchema.parse(submitted.json);
    expect(status).toMatchObject({ state: 'waiting', requested_by: 'op-viv', progress: { read: 0, fraction: 0 } });

    const seen = await call(other, 'op-viv', 'GET', `/v1/operator/config/replay/${status.id}`);
    expect(seen.status).toBe(200);
    expect(ConfigReplayStatusSchema.parse(seen.json)).toMatchObject({ id: status.id, state: 'waiting' });

    const cancelled = await call(other, 'op-viv', 'DELETE', `/v1/operator/config/replay/${status.id}`);
    expect(cancelled.status).toBe(200);
    expect(ConfigReplayStatusSchema.parse(cancelled.json)).toMatchObject({ id: status.id, state: 'cancelled' });
    expect(ConfigReplayStatusSchema.parse((await call(gw, 'op-viv', 'GET', `/v1/operator/config/replay/${status.id}`)).json).state).toBe('cancelled');
  });

  it('answers 404 for an unknown replay and 400 for an id that is not one', async () => {
    expect((await call(gw, 'op-viv', 'GET', `/v1/operator/config/replay/${randomUUID()}`)).status).toBe(404);
    expect((await call(gw, 'op-viv', 'DELETE', `/v1/operator/config/replay/${randomUUID()}`)).status).toBe(404);
    expect((await call(gw, 'op-viv', 'GET', '/v1/operator/config/replay/not-an-id')).status).toBe(400);
  });

  it('refuses a replay while 8 are waiting or running (429), and takes one again after a cancel', async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX_UNFINISHED_REPLAYS; i += 1) {
      const { status, json } = await call(gw, 'op-viv', 'POST', '/v1/operator/config/replay', { source: CANDIDATE, since: since() });
      expect(status).toBe(202);
      ids.push(ConfigReplayStatusSchema.parse(json).id);
    }
    const refused = await call(other, 'op-viv', 'POST', '/v1/operator/config/replay', { source: CANDIDATE, since: since() });
    expect(refused.status).toBe(429);
    expect(OperatorErrorBodySchema.parse(refused.json).error).toMatchObject({ code: 'E_RATE_LIMITED', details: { unfinished: MAX_UNFINISHED_REPLAYS } });
    expect((await call(gw, 'op-viv', 'DELETE', `/v1/operator/config/replay/${ids[0]!}`)).status).toBe(200);
    const again = await call(gw, 'op-viv', 'POST', '/v1/operator/config/replay', { source: CANDIDATE, since: since() });
    expect(again.status).toBe(202);
    ids.push(ConfigReplayStatusSchema.parse(again.json).id);
    // Leave nothing waiting for the other specs of the deployment.
    for (const id of ids) await call(gw, 'op-viv', 'DELETE', `/v1/operator/config/replay/${id}`);
  });

  it('refuses a team-scoped token: the report shows every team', async () => {
    const { status, json } = await call(gw, 'op-red', 'POST', '/v1/operator/config/replay', { source: CANDIDATE, since: since() });
    expect(status).toBe(403);
    expect(OperatorErrorBodySchema.parse(json).error.code).toBe('E_FORBIDDEN');
  });
});
