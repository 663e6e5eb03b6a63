/**
 * The shadow configuration through the operator API on a real gateway (in-process, the run's
 * private Redis): who may read and act, the publish's own validation, `unchanged`, stale shadows
 * refused with 409, bad input refused with a typed error, and that `config/shadow` is never read
 * as a version number by `GET config/:version`.
 */
import { readFileSync } from 'node:fs';
import { ConfigVersionDetailSchema, OperatorErrorBodySchema, SetShadowResponseSchema, ShadowStatusResponseSchema } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, startTestGateway, type TestGateway, type TestOperatorEntry } from './support/test-gateway.js';

const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
  { id: 'op-red-admin', name: 'Red admin', role: 'admin', token: newToken(), scope: { teams: ['red'] } },
];
const VALID = readFileSync(new URL('../../../.ahp/hooks.yaml', import.meta.url), 'utf8');
const OTHER = 'version: 1\nhooks: {}\n';
const INVALID = 'version: 1\nhooks:\n  pre-tool-use:\n    oracles:\n      - name: x\n        use: acme/missing\n';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-shadow', operators: OPERATORS });
});

afterAll(async () => {
  await gw?.stop();
});

async function call(operator: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

const code = (json: unknown) => OperatorErrorBodySchema.parse(json).error.code;

describe('operator API: shadow configuration', () => {
  it('answers 404 without a shadow, on its own route (not as a version number)', async () => {
    const { status, json } = await call('op-viv', 'GET', '/v1/operator/config/shadow');
    expect(status).toBe(404);
    expect(OperatorErrorBodySchema.parse(json).error).toMatchObject({ code: 'E_NOT_FOUND', message: 'no shadow hooks configuration is set' });
    expect(code((await call('op-root', 'POST', '/v1/operator/config/shadow/promote', {})).json)).toBe('E_NOT_FOUND');
    expect(code((await call('op-root', 'DELETE', '/v1/operator/config/shadow')).json)).toBe('E_NOT_FOUND');
  });

  it('refuses a viewer and a team-scoped admin (403), and an invalid or oversized text as a publish does', async () => {
    expect(OperatorErrorBodySchema.parse((await call('op-viv', 'POST', '/v1/operator/config/shadow', { source: VALID })).json).error).toMatchObject({ code: 'E_FORBIDDEN', details: { required_role: 'admin' } });
    const scoped = await call('op-red-admin', 'POST', '/v1/operator/config/shadow', { source: VALID });
    expect([scoped.status, code(scoped.json)]).toEqual([403, 'E_FORBIDDEN']);
    const invalid = await call('op-root', 'POST', '/v1/operator/config/shadow', { source: INVALID });
    expect(invalid.status).toBe(400);
    expect(OperatorErrorBodySchema.parse(invalid.json).error).toMatchObject({ code: 'E_INVALID_FRAME', details: { issue_count: 1, issues: [expect.objectContaining({ line: 6 })] } });
    const big = await call('op-root', 'POST', '/v1/operator/config/shadow', { source: `# ${'x'.repeat(70 * 1024)}\n${OTHER}` });
    expect([big.status, code(big.json)]).toEqual([413, 'E_FRAME_TOO_LARGE']);
    expect(code((await call('op-root', 'POST', '/v1/operator/config/shadow', { source: VALID, extra: 1 })).json)).toBe('E_INVALID_FRAME');
    expect((await call('op-viv', 'GET', '/v1/operator/config/shadow')).status).toBe(404);
  });

  it('sets a shadow (unchanged for the same text), shows it to any role, refuses a stale promote or drop, and promotes it', async () => {
    const first = await call('op-root', 'POST', '/v1/operator/config/shadow', { source: OTHER });
    expect(first.status).toBe(201);
    const shadow = SetShadowResponseSchema.parse(first.json).shadow;
    expect(SetShadowResponseSchema.parse((await call('op-root', 'POST', '/v1/operator/config/shadow', { source: OTHER })).json)).toMatchObject({ shadow, unchanged: true });
    const second = SetShadowResponseSchema.parse((await call('op-root', 'POST', '/v1/operator/config/shadow', { source: VALID })).json);
    expect(second).toMatchObject({ shadow: shadow + 1, unchanged: false });

    const status = ShadowStatusResponseSchema.parse((await call('op-viv', 'GET', '/v1/operator/config/shadow')).json);
    expect(status).toMatchObject({ shadow: second.shadow, published_by: 'op-root', live_version: null, source: VALID, evaluated: 0, skipped_busy: 0, disagreements: 0, rules: [], examples: [] });

    expect(code((await call('op-root', 'POST', '/v1/operator/config/shadow/promote', { shadow })).json)).toBe('E_CONFLICT');
    expect(code((await call('op-root', 'DELETE', `/v1/operator/config/shadow?shadow=${shadow}`)).json)).toBe('E_CONFLICT');
    expect(code((await call('op-root', 'DELETE', '/v1/operator/config/shadow?shadow=abc')).json)).toBe('E_INVALID_FRAME');
    expect(code((await call('op-root', 'POST', '/v1/operator/config/shadow/promote', { shadow: 'two' })).json)).toBe('E_INVALID_FRAME');
    expect(code((await call('op-red-admin', 'POST', '/v1/operator/config/shadow/promote', { shadow: second.shadow })).json)).toBe('E_FORBIDDEN');

    const promoted = await call('op-root', 'POST', '/v1/operator/config/shadow/promote', { shadow: second.shadow });
    expect(promoted).toEqual({ status: 200, json: { shadow: second.shadow, version: 1, unchanged: false } });
    expect(ConfigVersionDetailSchema.parse((await call('op-viv', 'GET', '/v1/operator/config')).json)).toMatchObject({ version: 1, source: VALID, published_by: 'op-root' });
    expect((await call('op-viv', 'GET', '/v1/operator/config/shadow')).status).toBe(404);
  });
});
