/**
 * Hooks configuration versions through the operator API on a real gateway: who may read and who
 * may publish, validation with line-numbered issues, "unchanged" re-publishes, and the history.
 */
import { readFileSync } from 'node:fs';
import {
  ConfigHistoryResponseSchema,
  ConfigVersionDetailSchema,
  OperatorErrorBodySchema,
  PublishConfigResponseSchema,
  ValidateConfigResponseSchema,
} from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, startTestGateway, type TestGateway, type TestOperatorEntry } from './support/test-gateway.js';

const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-maria', name: 'Maria', role: 'approver', token: newToken() },
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
];
/** The repository's own hooks.yaml: a real, valid configuration. */
const VALID = readFileSync(new URL('../../../.ahp/hooks.yaml', import.meta.url), 'utf8');
/** Line 6 names an oracle that does not exist. */
const INVALID = 'version: 1\nhooks:\n  pre-tool-use:\n    oracles:\n      - name: x\n        use: acme/missing\n';

/** Valid, with one lint warning: an always-true block shadows the rule after it. */
const WARNED = [
  'version: 1',
  'hooks:',
  '  pre-tool-use:',
  '    oracles:',
  '      - name: gate',
  '        rules:',
  '          - id: everything',
  '            condition: "true"',
  '            intensity: block',
  '          - id: shell',
  "            condition: 'tool.name == \"bash\"'",
  '            intensity: block',
  '',
].join('\n');
const WARNING = {
  kind: 'shadowed-rule',
  subject: 'pre-tool-use/gate/shell',
  line: 11,
  column: 24,
  path: 'hooks.pre-tool-use.oracles[0].rules[1].condition',
  message: 'pre-tool-use/gate/shell is shadowed by the earlier rule pre-tool-use/gate/everything (its condition is always true, and it always blocks): it can never decide anything',
};

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-config', operators: OPERATORS });
});

afterAll(async () => {
  await gw?.stop();
});

async function call(operator: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

describe('operator API: hooks configuration', () => {
  it('answers 404 while nothing is published', async () => {
    const { status, json } = await call('op-viv', 'GET', '/v1/operator/config');
    expect(status).toBe(404);
    expect(OperatorErrorBodySchema.parse(json).error.code).toBe('E_NOT_FOUND');
  });

  it('refuses a publish by an approver (403) and stores nothing', async () => {
    const { status, json } = await call('op-maria', 'POST', '/v1/operator/config', { source: VALID });
    expect(status).toBe(403);
    expect(OperatorErrorBodySchema.parse(json).error).toMatchObject({ code: 'E_FORBIDDEN', details: { required_role: 'admin' } });
    expect((await call('op-viv', 'GET', '/v1/operator/config')).status).toBe(404);
  });

  it('publishes a valid file as version 1, then reports the same text as unchanged', async () => {
    const first = await call('op-root', 'POST', '/v1/operator/config', { source: VALID });
    expect(first.status).toBe(201);
    expect(PublishConfigResponseSchema.parse(first.json)).toEqual({ version: 1, unchanged: false, warnings: [] });

    const again = await call('op-root', 'POST', '/v1/operator/config', { source: VALID });
    expect(again.status).toBe(201);
    expect(PublishConfigResponseSchema.parse(again.json)).toEqual({ version: 1, unchanged: true, warnings: [] });

    const current = await call('op-viv', 'GET', '/v1/operator/config');
    expect(current.status).toBe(200);
    expect(ConfigVersionDetailSchema.parse(current.json)).toMatchObject({ version: 1, published_by: 'op-root', source: VALID });
    expect(gw.logs.some((line) => line.includes('"hooks configuration published"') && line.includes('"op-root"'))).toBe(true);
  });

  it('refuses an invalid file with 400 and its issues by line', async () => {
    const { status, json } = await call('op-root', 'POST', '/v1/operator/config', { source: INVALID });
    expect(status).toBe(400);
    const error = OperatorErrorBodySchema.parse(json).error;
    expect(error.code).toBe('E_INVALID_FRAME');
    expect(error.details?.['issues']).toContainEqual(expect.objectContaining({ line: 6, path: 'hooks.pre-tool-use.oracles[0].use', message: expect.stringContaining('acme/missing') }));
  });

  it('validates without publishing, for any operator: issues of an invalid text, lint warnings of a valid one', async () => {
    const invalid = await call('op-viv', 'POST', '/v1/operator/config/validate', { source: INVALID });
    expect(invalid.status).toBe(200);
    const refused = ValidateConfigResponseSchema.parse(invalid.json);
    expect(refused).toMatchObject({ valid: false, warnings: [] });
    expect(refused.issues).toContainEqual(expect.objectContaining({ line: 6, path: 'hooks.pre-tool-use.oracles[0].use' }));

    const clean = ValidateConfigResponseSchema.parse((await call('op-viv', 'POST', '/v1/operator/config/validate', { source: VALID })).json);
    expect(clean).toEqual({ valid: true, issues: [], warnings: [] });

    const warned = ValidateConfigResponseSchema.parse((await call('op-viv', 'POST', '/v1/operator/config/validate', { source: WARNED })).json);
    expect(warned).toEqual({ valid: true, issues: [], warnings: [WARNING] });
    expect((await call('op-viv', 'POST', '/v1/operator/config/validate', { text: VALID })).status).toBe(400);
    expect((await call('op-viv', 'POST', '/v1/operator/config/validate', { source: `# ${'x'.repeat(70_000)}\n` })).status).toBe(413);
    // Nothing was published by validating.
    expect(ConfigHistoryResponseSchema.parse((await call('op-viv', 'GET', '/v1/operator/config/history')).json).versions.map((v) => v.version)).toEqual([1]);
  });

  it('publishes a text with lint warnings, answering them in `warnings`', async () => {
    const published = await call('op-root', 'POST', '/v1/operator/config', { source: WARNED });
    expect(published.status).toBe(201);
    expect(PublishConfigResponseSchema.parse(published.json)).toEqual({ version: 2, unchanged: false, warnings: [WARNING] });
    // Back to the repository's file, so the history below starts from it.
    expect(PublishConfigResponseSchema.parse((await call('op-root', 'POST', '/v1/operator/config', { source: VALID })).json)).toMatchObject({ version: 3 });
  });

  it('refuses a body without source (400) and an oversized text (413)', async () => {
    expect((await call('op-root', 'POST', '/v1/operator/config', { text: VALID })).status).toBe(400);
    const big = await call('op-root', 'POST', '/v1/operator/config', { source: `# ${'x'.repeat(70_000)}\n${VALID}` });
    expect(big.status).toBe(413);
    expect(OperatorErrorBodySchema.parse(big.json).error.code).toBe('E_FRAME_TOO_LARGE');
  });

  it('lists the history newest first and reads one version', async () => {
    const second = await call('op-root', 'POST', '/v1/operator/config', { source: `${VALID}# second\n` });
    expect(PublishConfigResponseSchema.parse(second.json)).toEqual({ version: 4, unchanged: false, warnings: [] });

    const history = await call('op-viv', 'GET', '/v1/operator/config/history?limit=10');
    expect(history.status).toBe(200);
    expect(ConfigHistoryResponseSchema.parse(history.json).versions.map((v) => v.version)).toEqual([4, 3, 2, 1]);
    expect(ConfigHistoryResponseSchema.parse((await call('op-viv', 'GET', '/v1/operator/config/history?limit=1')).json).versions).toHaveLength(1);

    const one = await call('op-viv', 'GET', '/v1/operator/config/1');
    expect(ConfigVersionDetailSchema.parse(one.json)).toMatchObject({ version: 1, source: VALID });
    expect((await call('op-viv', 'GET', '/v1/operator/config/9')).status).toBe(404);
    expect((await call('op-viv', 'GET', '/v1/operator/config/latest')).status).toBe(400);
  });
});
