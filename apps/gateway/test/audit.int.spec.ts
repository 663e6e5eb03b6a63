/**
 * The operators' audit trail on a real gateway (in-process, the run's private Redis): request
 * decisions (applied, repeated, refused), hooks configuration publishes (applied, unchanged,
 * refused) and validations (valid or not, refused; size and digest, never the text) are recorded with who, which role, what, the outcome and when; `GET /v1/operator/audit`
 * is for admins and filters by operator, action and time.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AuditListResponseSchema, OperatorErrorBodySchema, PublishConfigResponseSchema, type AuditEntry, type Plan } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [{ id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' }];
const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-maria', name: 'Maria', role: 'approver', token: newToken() },
  { id: 'op-omar', name: 'Omar', role: 'approver', token: newToken() },
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
];
const PLAN: Plan = { title: 'Index orders', steps: [{ id: 's1', description: 'add the index', dependencies: [], status: 'pending', tools_expected: [] }] };
const VALID = readFileSync(new URL('../../../.ahp/hooks.yaml', import.meta.url), 'utf8');
const INVALID = 'version: 1\nhooks:\n  pre-tool-use:\n    oracles:\n      - name: x\n        use: acme/missing\n';

let gw: TestGateway;
let store: TestStore;
let alice: AgentClient;
const startedAt = Date.now();

beforeAll(async () => {
  gw = await startTestGateway({ name: 'audit', agents: AGENTS, operators: OPERATORS });
  store = await openTestStore(gw.keyPrefix, testLogger());
  alice = (await connectReady(gw.wsUrl, gw.agents['alice']!.token)).client;
});

afterAll(async () => {
  await alice?.close();
  await gw?.stop();
  await store?.close();
});

async function call(operator: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

async function audit(query = ''): Promise<AuditEntry[]> {
  const { status, json } = await call('op-root', 'GET', `/v1/operator/audit${query}`);
  expect(status).toBe(200);
  return AuditListResponseSchema.parse(json).entries;
}

async function openPlan(): Promise<string> {
  const requestId = `req_${randomUUID()}`;
  const reply = await alice.request({ type: 'request', id: `open-${requestId}`, request: { request_id: requestId, type: 'plan_approval', target: { kind: 'operators' }, payload: { plan: PLAN } } });
  expect(reply.type).toBe('ack');
  return requestId;
}

describe('audit trail', () => {
  it('records every operator decision with who, role, outcome and when — also the repeated and the refused ones', async () => {
    const requestId = await openPlan();
    expect((await call('op-maria', 'POST', `/v1/operator/requests/${requestId}/decision`, { approve: true, feedback: 'fine' })).status).toBe(200);
    expect((await call('op-maria', 'POST', `/v1/operator/requests/${requestId}/decision`, { approve: true })).status).toBe(200);
    expect((await call('op-omar', 'POST', `/v1/operator/requests/${requestId}/decision`, { approve: false })).status).toBe(409);
    expect((await call('op-omar', 'POST', `/v1/operator/requests/req_never-opened/decision`, { approve: false })).status).toBe(404);

    const entries = (await audit('?action=request.decide')).filter((entry) => entry.target === requestId);
    expect(entries.map(({ operator, outcome, details }) => ({ operator, outcome, details }))).toEqual([
      { operator: { id: 'op-omar', role: 'approver' }, outcome: 'refused', details: { approve: false, error_code: 'E_CONFLICT', status: 409 } },
      { operator: { id: 'op-maria', role: 'approver' }, outcome: 'unchanged', details: { approve: true, status: 'approved', request_type: 'plan_approval' } },
      { operator: { id: 'op-maria', role: 'approver' }, outcome: 'applied', details: { approve: true, status: 'approved', request_type: 'plan_approval' } },
    ]);
    for (const entry of entries) {
      expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(startedAt - 1000);
      expect(entry.action).toBe('request.decide');
    }
    expect(await audit('?operator=op-omar&action=request.decide&limit=1')).toMatchObject([{ target: 'req_never-opened', outcome: 'refused', details: { error_code: 'E_NOT_FOUND' } }]);
    // The feedback text stays in the request's history; the trail keeps only small facts.
    expect(JSON.stringify(entries)).not.toContain('fine');
  });

  it('records each validation of a candidate configuration: who, valid or not, issue count, size and digest, never the text', async () => {
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    expect((await call('op-maria', 'POST', '/v1/operator/config/validate', { source: VALID })).status).toBe(200);
    expect((await call('op-omar', 'POST', '/v1/operator/config/validate', { source: INVALID })).status).toBe(200);
    expect((await call('op-omar', 'POST', '/v1/operator/config/validate', { text: 'not the field' })).status).toBe(400);
    expect((await call('op-omar', 'POST', '/v1/operator/config/validate', { source: `# ${'x'.repeat(70_000)}\n` })).status).toBe(413);

    const entries = await audit('?action=config.validate');
    expect(entries.map(({ operator, target, outcome, details }) => ({ operator, target, outcome, details }))).toEqual([
      { operator: { id: 'op-omar', role: 'approver' }, target: 'hooks', outcome: 'refused', details: { bytes: 70_003, error_code: 'E_FRAME_TOO_LARGE', status: 413 } },
      { operator: { id: 'op-omar', role: 'approver' }, target: 'hooks', outcome: 'refused', details: { error_code: 'E_INVALID_FRAME', status: 400, issue_count: 2 } },
      { operator: { id: 'op-omar', role: 'approver' }, target: 'hooks', outcome: 'unchanged', details: { bytes: INVALID.length, sha256: sha256(INVALID), valid: false, issue_count: 1, warning_count: 0 } },
      { operator: { id: 'op-maria', role: 'approver' }, target: 'hooks', outcome: 'unchanged', details: { bytes: Buffer.byteLength(VALID), sha256: sha256(VALID), valid: true, issue_count: 0, warning_count: expect.any(Number) as unknown } },
    ]);
    expect(JSON.stringify(entries)).not.toContain('acme/missing');
  });

  it('records configuration publishes, unchanged re-publishes and refusals with their issue count', async () => {
    expect((await call('op-root', 'POST', '/v1/operator/config', { source: VALID })).status).toBe(201);
    expect((await call('op-root', 'POST', '/v1/operator/config', { source: VALID })).status).toBe(201);
    expect((await call('op-root', 'POST', '/v1/operator/config', { source: INVALID })).status).toBe(400);
    expect((await call('op-root', 'POST', '/v1/operator/config', { source: `# ${'x'.repeat(70_000)}\n` })).status).toBe(413);

    const entries = await audit('?action=config.publish');
    expect(entries.map(({ operator, target, outcome, details }) => ({ operator, target, outcome, details }))).toEqual([
      { operator: { id: 'op-root', role: 'admin' }, target: 'hooks', outcome: 'refused', details: { bytes: 70_003, error_code: 'E_FRAME_TOO_LARGE', status: 413 } },
      { operator: { id: 'op-root', role: 'admin' }, target: 'hooks', outcome: 'refused', details: { bytes: INVALID.length, error_code: 'E_INVALID_FRAME', status: 400, issue_count: 1 } },
      { operator: { id: 'op-root', role: 'admin' }, target: 'hooks', outcome: 'unchanged', details: { bytes: Buffer.byteLength(VALID), version: 1 } },
      { operator: { id: 'op-root', role: 'admin' }, target: 'hooks', outcome: 'applied', details: { bytes: Buffer.byteLength(VALID), version: 1 } },
    ]);
    // The trail lives in Redis, where every gateway appends to and reads from the same stream.
    expect(await store.redis.xLen(`${store.keys.prefix}:audit`)).toBeGreaterThanOrEqual(entries.length);
  });

  it('records a rollback as a publish of the earlier version\'s text, naming the version it restored', async () => {
    const edited = `${VALID}\n# edited after version 1\n`;
    const second = await call('op-root', 'POST', '/v1/operator/config', { source: edited });
    expect(second.status).toBe(201);
    const rolledBack = await call('op-root', 'POST', '/v1/operator/config', { source: VALID, rollback_of: 1 });
    expect(rolledBack.status).toBe(201);
    const restored = PublishConfigResponseSchema.parse(rolledBack.json);
    expect(restored).toMatchObject({ unchanged: false });
    expect(restored.version).toBeGreaterThan(PublishConfigResponseSchema.parse(second.json).version);
    // A text that is not the named version's, or a version never published, is refused and stores nothing.
    const mismatch = await call('op-root', 'POST', '/v1/operator/config', { source: edited, rollback_of: 1 });
    expect(mismatch.status).toBe(400);
    expect(OperatorErrorBodySchema.parse(mismatch.json).error).toMatchObject({ code: 'E_INVALID_FRAME', details: { rollback_of: 1 } });
    expect((await call('op-root', 'POST', '/v1/operator/config', { source: VALID, rollback_of: 999 })).status).toBe(404);
    const current = await call('op-root', 'GET', '/v1/operator/config');
    expect(current.json).toMatchObject({ version: restored.version, source: VALID });

    const rollbacks = (await audit('?action=config.publish')).filter((entry) => entry.details?.['rollback_of'] !== undefined);
    expect(rollbacks.map(({ outcome, details }) => ({ outcome, details }))).toEqual([
      { outcome: 'refused', details: { bytes: Buffer.byteLength(VALID), rollback_of: 999, error_code: 'E_NOT_FOUND', status: 404 } },
      { outcome: 'refused', details: { bytes: Buffer.byteLength(edited), rollback_of: 1, error_code: 'E_INVALID_FRAME', status: 400 } },
      { outcome: 'applied', details: { bytes: Buffer.byteLength(VALID), rollback_of: 1, version: restored.version } },
    ]);
  });

  it('is for admins only, filters by time, and refuses unknown parameters', async () => {
    const forbidden = await call('op-maria', 'GET', '/v1/operator/audit');
    expect(forbidden.status).toBe(403);
    expect(OperatorErrorBodySchema.parse(forbidden.json).error).toMatchObject({ code: 'E_FORBIDDEN', details: { required_role: 'admin' } });

    const all = await audit();
    expect(all.length).toBeGreaterThanOrEqual(8);
    expect(await audit(`?until=${encodeURIComponent(new Date(startedAt - 60_000).toISOString())}`)).toEqual([]);
    expect((await audit(`?since=${encodeURIComponent(new Date(startedAt - 1000).toISOString())}&limit=500`)).length).toBe(all.length);
    const limited = await call('op-root', 'GET', '/v1/operator/audit?limit=2');
    expect(AuditListResponseSchema.parse(limited.json)).toMatchObject({ truncated: true, entries: [all[0], all[1]] });

    for (const bad of ['?who=op-root', '?limit=0', '?since=yesterday', '?action=config.delete']) {
      const refused = await call('op-root', 'GET', `/v1/operator/audit${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(OperatorErrorBodySchema.parse(refused.json).error.code).toBe('E_INVALID_FRAME');
    }
  });
});
