/**
 * What the configuration routes show a caller on a real gateway (in-process, the run's private
 * Redis): the notification channels' URLs (credentials) only to a fleet-wide admin, masked for
 * everyone else in the current version, a named version and the shadow; a text carrying the mask
 * back is refused on publish and on shadow, nothing stored; and a team-scoped token reads only its
 * teams' agents among the shadow's disagreement examples.
 */
import { randomUUID } from 'node:crypto';
import { REDACTED_CREDENTIAL } from '@ahp/oracles';
import { ConfigVersionDetailSchema, OperatorErrorBodySchema, ShadowStatusResponseSchema } from '@ahp/protocol';
import { createShadowConfigStore } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, openTestStore, startTestGateway, testLogger, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const SLACK = 'https://hooks.slack.example/services/T0/B0/SLACKSECRET';
const HOOK = 'https://hooks.example.com/in?token=HOOKSECRET';
const SOURCE = `version: 1
hooks: {}
notifications:
  channels:
    chat: { type: slack, url: "${SLACK}" }
    on-call:
      type: webhook
      url: ${HOOK}
      secret_env: AHP_WEBHOOK_SECRET
  routes:
    - channels: [chat, on-call]
`;

const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-red-admin', name: 'Red admin', role: 'admin', token: newToken(), scope: { teams: ['red'] } },
];

let gw: TestGateway;
let store: TestStore;

beforeAll(async () => {
  gw = await startTestGateway({
    name: 'operator-config-secrets',
    operators: OPERATORS,
    agents: [
      { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
      { id: 'bob', name: 'Bob', token: newToken(), team: 'blue', role: 'teammate' },
    ],
  });
  store = await openTestStore(gw.keyPrefix, testLogger());
});

afterAll(async () => {
  await store?.close();
  await gw?.stop();
});

async function call(operator: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}/v1/operator${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

const sourceOf = async (operator: string, path: string) => {
  const { status, json } = await call(operator, 'GET', path);
  expect(status, `${operator} GET ${path}`).toBe(200);
  return path.endsWith('/shadow') ? ShadowStatusResponseSchema.parse(json).source : ConfigVersionDetailSchema.parse(json).source;
};

describe('credentials in the hooks configuration', () => {
  it('are read whole by a fleet-wide admin only, masked for a viewer and a team-scoped admin', async () => {
    expect((await call('op-root', 'POST', '/config', { source: SOURCE })).status).toBe(201);
    expect((await call('op-root', 'POST', '/config/shadow', { source: SOURCE })).status).toBe(201);
    for (const path of ['/config', '/config/1', '/config/shadow']) {
      expect(await sourceOf('op-root', path)).toBe(SOURCE);
      for (const operator of ['op-viv', 'op-red-admin']) {
        const masked = await sourceOf(operator, path);
        expect(masked, `${operator} ${path}`).not.toMatch(/SLACKSECRET|HOOKSECRET/);
        expect(masked).toContain(`url: "${REDACTED_CREDENTIAL}"`);
        expect(masked).toContain('secret_env: AHP_WEBHOOK_SECRET');
      }
    }
  });

  it('cannot be published back masked: the publish and the shadow are refused, nothing changes', async () => {
    const masked = await sourceOf('op-viv', '/config');
    for (const path of ['/config', '/config/shadow']) {
      const refused = await call('op-root', 'POST', path, { source: masked });
      expect(refused.status).toBe(400);
      expect(OperatorErrorBodySchema.parse(refused.json).error).toMatchObject({ code: 'E_INVALID_FRAME', details: { marker: REDACTED_CREDENTIAL } });
    }
    expect(ConfigVersionDetailSchema.parse((await call('op-root', 'GET', '/config')).json)).toMatchObject({ version: 1, source: SOURCE });
    expect(await sourceOf('op-root', '/config/shadow')).toBe(SOURCE);
  });
});

describe('the shadow’s disagreement examples', () => {
  it('list only the agents a team-scoped token sees; a fleet-wide one sees all', async () => {
    const shadows = createShadowConfigStore({ redis: store.redis, keys: store.keys, logger: testLogger() });
    const shadow = ShadowStatusResponseSchema.parse((await call('op-root', 'GET', '/config/shadow')).json).shadow;
    for (const agentId of ['alice', 'bob']) {
      await shadows.record({
        shadow,
        hookId: randomUUID(),
        agentId,
        trigger: 'pre-tool-use',
        at: Date.now(),
        live: 'allow',
        shadowOutcome: 'block',
        liveVersion: 1,
        fired: ['secrets_aws-key'],
        differing: ['secrets_aws-key'],
      });
    }
    const agentsOf = async (operator: string) =>
      ShadowStatusResponseSchema.parse((await call(operator, 'GET', '/config/shadow')).json)
        .examples.map((example) => example.agent_id)
        .sort();
    expect(await agentsOf('op-root')).toEqual(['alice', 'bob']);
    expect(await agentsOf('op-viv')).toEqual(['alice', 'bob']);
    expect(await agentsOf('op-red-admin')).toEqual(['alice']);
  });
});
