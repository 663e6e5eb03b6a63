/**
 * Hostile configuration and operator input, property-based: the hooks configuration validator
 * (`validateHooksConfig`, in this process) and `POST /v1/operator/config` on a real gateway
 * (in-process, the run's private Redis) get malformed YAML, YAML bombs, deep nesting and hostile
 * expressions (deep nesting, huge literals, prototype keys, regex bombs). The answer is always a
 * typed result — a valid configuration, or issues with a line number — never an exception, a 500
 * or a hang; and the documented size bounds hold.
 */
import { readFileSync } from 'node:fs';
import { MAX_HOOKS_CONFIG_CHARS, validateHooksConfig } from '@ahp/oracles';
import { MAX_CONFIG_SOURCE_BYTES, OperatorErrorBodySchema, PublishConfigResponseSchema } from '@ahp/protocol';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken, startTestGateway, type TestGateway, type TestOperatorEntry } from './support/test-gateway.js';

const VALID = readFileSync(new URL('../../../.ahp/hooks.yaml', import.meta.url), 'utf8');
const VALID_LINES = VALID.split('\n');

/** A configuration whose one rule has `condition` (written as a YAML double-quoted scalar on line 8). */
function withCondition(condition: string): string {
  return [
    'version: 1',
    'hooks:',
    '  pre-issue-submit:',
    '    oracles:',
    '      - name: change-size-limiter',
    '        rules:',
    '          - id: r',
    `            condition: ${JSON.stringify(condition)}`,
    '            intensity: block',
    '            message: "no"',
    '',
  ].join('\n');
}
const CONDITION_LINE = 8;

/** Every issue a refusal reports must say where: a line (1-based, or 0 when the input is not text) and a column. */
function expectLocatedIssues(result: ReturnType<typeof validateHooksConfig>, lineCount: number): void {
  if (result.ok) return;
  expect(result.issues.length).toBeGreaterThan(0);
  expect(result.issues.length).toBeLessThanOrEqual(50);
  for (const issue of result.issues) {
    expect(Number.isInteger(issue.line) && issue.line >= 1 && issue.line <= lineCount + 1, JSON.stringify(issue)).toBe(true);
    expect(Number.isInteger(issue.column) && issue.column >= 0).toBe(true);
    expect(typeof issue.path).toBe('string');
    expect(issue.message.length).toBeGreaterThan(0);
  }
}

/** Edits a person (or a broken tool) might make to a valid file. */
const mangledYamlArb = fc.oneof(
  fc.nat().map((n) => VALID_LINES.filter((_, i) => i !== n % VALID_LINES.length).join('\n')),
  fc.nat().map((n) => VALID_LINES.flatMap((line, i) => (i === n % VALID_LINES.length ? [line, line] : [line])).join('\n')),
  fc.tuple(fc.nat(), fc.string({ unit: 'binary', minLength: 1, maxLength: 8 })).map(([at, junk]) => {
    const i = at % VALID.length;
    return `${VALID.slice(0, i)}${junk}${VALID.slice(i)}`;
  }),
  fc.nat().map((n) => VALID.slice(0, n % VALID.length)),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 6 })).map(([n, shift]) =>
    VALID_LINES.map((line, i) => (i === n % VALID_LINES.length ? `${' '.repeat(shift)}${line}` : line)).join('\n'),
  ),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

/** YAML built to exhaust a parser: aliases that multiply, nesting far deeper than any file has, tags and anchors everywhere. */
const yamlBombArb = fc.oneof(
  fc.integer({ min: 3, max: 9 }).map((levels) => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\nversion: 1\nhooks: {}\n`;
  }),
  fc.integer({ min: 1000, max: 20_000 }).map((depth) => `hooks: ${'['.repeat(depth)}${']'.repeat(depth)}\n`),
  fc.integer({ min: 1000, max: 10_000 }).map((depth) => `hooks: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}\n`),
  fc.integer({ min: 200, max: 2000 }).map((depth) => Array.from({ length: depth }, (_, i) => `${' '.repeat(i)}- `).join('\n')),
  fc.constantFrom('version: 1\nversion: 1\nhooks: {}\n', '&a [*a]\n', 'hooks: &h {a: *h}\n'),
);

/** Tags, directives and other YAML features a hooks file never needs: any answer, as long as it is typed. */
const exoticYamlArb = fc.constantFrom('!!js/function "function () {}"\n', 'hooks: !!binary aGVsbG8=\n', '%YAML 9.9\n---\nhooks: {}\n', '--- !<tag:x> 1\n', 'hooks: !!set {a, b}\n', '? [a, b]\n: c\n');

/** Expressions built to hurt: each must be refused at compile time (with the rule's line). */
const refusedExpressionArb = fc.oneof(
  fc.integer({ min: 33, max: 600 }).map((depth) => `${'('.repeat(depth)}x${')'.repeat(depth)}`),
  fc.integer({ min: 33, max: 600 }).map((depth) => `${'not '.repeat(depth)}x`),
  fc.integer({ min: 33, max: 400 }).map((depth) => `${'['.repeat(depth)}1${']'.repeat(depth)} == x`),
  fc.integer({ min: 33, max: 200 }).map((length) => `${'9'.repeat(length)} > x`),
  fc.integer({ min: 257, max: 800 }).map((count) => `x in [${Array.from({ length: count }, (_, i) => i).join(',')}]`),
  fc.integer({ min: 4097, max: 6000 }).map((length) => `x == "${'z'.repeat(length)}"`),
  fc.constantFrom('x.__proto__', 'x["constructor"].name', 'prototype', 'a.b.constructor == 1', '__proto__ == null', 'x["__proto__"]["polluted"]'),
  // Nested quantifiers are linear on RE2 and accepted; what RE2 cannot run is refused.
  fc.constantFrom('x matches /(?=a)b/', 'x matches /(?!a)b/', 'x matches /(?<=a)b/', String.raw`x matches /(a)\1/`, String.raw`x matches "(?<w>a)\k<w>"`),
  fc.integer({ min: 513, max: 900 }).map((length) => `x matches /${'a'.repeat(length)}/`),
  fc.constantFrom('x matches /(/', 'x matches /a/g', 'x(', 'len()', 'exists(1)', 'x == ', '"unterminated', '`x`', 'x = 1'),
);

/** Anything at all as an expression: accepted or refused, but always with a located answer. */
const anyExpressionArb = fc.oneof(refusedExpressionArb, fc.string({ unit: 'binary', maxLength: 100 }), fc.string({ maxLength: 300 }));

describe('validateHooksConfig (fuzzed)', () => {
  it('answers mangled files with a valid configuration or line-numbered issues, never an exception', () => {
    fc.assert(
      fc.property(fc.oneof(mangledYamlArb, exoticYamlArb), (source) => {
        expectLocatedIssues(validateHooksConfig(source), source.split('\n').length);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses YAML bombs and absurd nesting with located issues', () => {
    fc.assert(
      fc.property(yamlBombArb, (source) => {
        const result = validateHooksConfig(source);
        expect(result.ok).toBe(false);
        expectLocatedIssues(result, source.split('\n').length);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses hostile expressions, pointing at the line of the condition', () => {
    fc.assert(
      fc.property(refusedExpressionArb, (condition) => {
        const result = validateHooksConfig(withCondition(condition));
        expect(result.ok, condition.slice(0, 80)).toBe(false);
        if (result.ok) return;
        expect(result.issues.some((issue) => issue.line === CONDITION_LINE && issue.path.endsWith('rules[0].condition')), JSON.stringify(result.issues).slice(0, 300)).toBe(true);
        expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
      }),
      { numRuns: 150 },
    );
  });

  it('answers any expression text with a configuration or located issues', () => {
    fc.assert(
      fc.property(anyExpressionArb, (condition) => {
        const source = withCondition(condition);
        expectLocatedIssues(validateHooksConfig(source), source.split('\n').length);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses text over its size bound before parsing it', () => {
    const result = validateHooksConfig(`# ${'x'.repeat(MAX_HOOKS_CONFIG_CHARS)}\n`);
    expect(result).toMatchObject({ ok: false, issues: [{ line: 1, message: expect.stringContaining(String(MAX_HOOKS_CONFIG_CHARS)) }] });
  });
});

describe('POST /v1/operator/config (fuzzed)', () => {
  const OPERATORS: TestOperatorEntry[] = [{ id: 'op-root', name: 'Root', role: 'admin', token: newToken() }];
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ name: 'config-fuzz', operators: OPERATORS });
  });

  afterAll(async () => {
    await gw?.stop();
  });

  async function publish(body: string): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${gw.httpUrl}/v1/operator/config`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATORS[0]!.token}`, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, json: await response.json() };
  }

  /** A publish answer is 201 with the version, or a typed 4xx; issues of a refused configuration carry their line. */
  function expectTypedAnswer({ status, json }: { status: number; json: unknown }): void {
    if (status === 201) {
      expect(PublishConfigResponseSchema.safeParse(json).success).toBe(true);
      return;
    }
    expect([400, 413]).toContain(status);
    const error = OperatorErrorBodySchema.parse(json).error;
    expect(['E_INVALID_FRAME', 'E_BAD_FRAME', 'E_FRAME_TOO_LARGE']).toContain(error.code);
    const issues = error.details?.['issues'];
    if (Array.isArray(issues) && issues.some((issue) => typeof issue === 'object' && issue !== null && 'line' in issue)) {
      for (const issue of issues as { line: unknown }[]) expect(Number.isInteger(issue.line)).toBe(true);
    }
  }

  it('answers hostile sources with 201 or a typed 400/413, and keeps serving', async () => {
    const sourceArb = fc.oneof(mangledYamlArb, exoticYamlArb, yamlBombArb, anyExpressionArb.map(withCondition));
    await fc.assert(
      fc.asyncProperty(sourceArb, async (source) => {
        if (source.length === 0) return;
        expectTypedAnswer(await publish(JSON.stringify({ source })));
      }),
      { numRuns: 30 },
    );
    expect((await fetch(`${gw.httpUrl}/healthz`)).status).toBe(200);
  });

  it('answers hostile bodies with a typed 400 or 413, and holds its size bounds', async () => {
    const bodies = [
      'not json at all',
      '[1, 2, 3]',
      '{"source": 42}',
      '{"source": ""}',
      '{"source": "version: 1", "extra": true}',
      '{"__proto__": {"source": "x"}, "source": "version: 1"}',
      `{"source": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
      JSON.stringify({ source: withCondition('x matches /(?=a)b/') }),
    ];
    for (const body of bodies) {
      const answer = await publish(body);
      expect([400, 413], body.slice(0, 60)).toContain(answer.status);
      expectTypedAnswer(answer);
    }
    // The configuration's own bound (64 KiB) and the HTTP body bound above it (100 kB).
    const overSource = await publish(JSON.stringify({ source: `# ${'x'.repeat(MAX_CONFIG_SOURCE_BYTES)}\n` }));
    expect(overSource.status).toBe(413);
    expect(OperatorErrorBodySchema.parse(overSource.json).error).toMatchObject({ code: 'E_FRAME_TOO_LARGE', details: { max_bytes: MAX_CONFIG_SOURCE_BYTES } });
    const overBody = await publish(JSON.stringify({ source: 'x'.repeat(200_000) }));
    expect(overBody.status).toBe(413);
    expect(OperatorErrorBodySchema.parse(overBody.json).error.code).toBe('E_FRAME_TOO_LARGE');
    expect(({} as Record<string, unknown>)['source']).toBeUndefined();
    expect((await fetch(`${gw.httpUrl}/healthz`)).status).toBe(200);
  });
});
