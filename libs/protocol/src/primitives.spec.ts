import { describe, expect, it } from 'vitest';
import { IdSchema, JsonObjectSchema, JsonValueSchema, LIMITS, TimestampSchema, inspectJsonValue } from './primitives.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { x: value };
  return value;
}

describe('JsonObjectSchema', () => {
  it('accepts an ordinary parsed JSON object and returns it unchanged', () => {
    const input = JSON.parse('{"tool":{"name":"bash","input":{"command":"ls -la","n":[1,2.5,null,true]}}}');
    expect(JsonObjectSchema.parse(input)).toEqual(input);
  });

  it('rejects a top-level __proto__ key instead of silently dropping it', () => {
    const result = JsonObjectSchema.safeParse(JSON.parse('{"__proto__":{"polluted":true}}'));
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ path: ['__proto__'], message: 'key "__proto__" is not allowed' });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('rejects constructor and prototype keys at any depth, naming the path', () => {
    const result = JsonObjectSchema.safeParse(JSON.parse('{"a":[{"constructor":{"prototype":1}}]}'));
    expect(result.error!.issues.map((i) => i.path)).toEqual([['a', 0, 'constructor']]);
  });

  it('rejects arrays, null, strings and class instances', () => {
    for (const value of [[], null, 'text', new Date(0), new Map()]) {
      expect(JsonObjectSchema.safeParse(value).error!.issues[0]!.message).toBe('expected a JSON object');
    }
  });
});

describe('inspectJsonValue', () => {
  it('bounds nesting depth without recursing (100k levels do not overflow the stack)', () => {
    expect(inspectJsonValue(nested(LIMITS.maxJsonDepth - 1))).toEqual([]);
    const issues = inspectJsonValue(nested(100_000));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toMatch(/nested deeper than 32/);
  });

  it('reports huge strings, long arrays, too many keys and long keys', () => {
    const value = {
      s: 'x'.repeat(LIMITS.maxJsonString + 1),
      a: new Array(LIMITS.maxArrayLength + 1).fill(0),
      o: Object.fromEntries(Array.from({ length: LIMITS.maxObjectKeys + 1 }, (_, i) => [`k${i}`, i])),
      ['k'.repeat(LIMITS.maxShortString + 1)]: 1,
    };
    const messages = inspectJsonValue(value).map((i) => i.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/string longer than/),
        expect.stringMatching(/array longer than/),
        expect.stringMatching(/object with more than/),
        expect.stringMatching(/key longer than/),
      ]),
    );
  });

  it('reports non-JSON values: non-finite numbers, functions, undefined', () => {
    const messages = inspectJsonValue({ n: Number.NaN, f: () => 1, u: undefined }).map((i) => `${i.path[0]}: ${i.message}`);
    expect(messages.sort()).toEqual(['f: not a JSON value (function)', 'n: number must be finite', 'u: not a JSON value (undefined)']);
  });

  it('stops after maxIssues so a hostile value cannot make a huge report', () => {
    const value = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, Number.POSITIVE_INFINITY]));
    expect(inspectJsonValue(value, 10)).toHaveLength(10);
  });
});

describe('JsonValueSchema', () => {
  it('accepts scalars and arrays, and rejects a nested prototype key', () => {
    expect(JsonValueSchema.parse(3)).toBe(3);
    expect(JsonValueSchema.parse(['a', { b: null }])).toEqual(['a', { b: null }]);
    expect(JsonValueSchema.safeParse(JSON.parse('[{"__proto__":{}}]')).error!.issues[0]!.path).toEqual([0, '__proto__']);
  });
});

describe('IdSchema and TimestampSchema', () => {
  it('accept ordinary ids and ISO timestamps with a zone', () => {
    expect(IdSchema.parse('agent-1.team:core_x')).toBe('agent-1.team:core_x');
    expect(TimestampSchema.parse('2026-02-09T10:00:00Z')).toBe('2026-02-09T10:00:00Z');
    expect(TimestampSchema.parse('2026-02-09T10:00:00.123+08:00')).toBe('2026-02-09T10:00:00.123+08:00');
  });

  it('reject spaces, slashes, empty ids and zone-less or non-ISO times', () => {
    for (const id of ['', 'a b', 'a/b', 'x'.repeat(129)]) expect(IdSchema.safeParse(id).success).toBe(false);
    for (const t of ['2026-02-09 10:00:00', '2026-02-09T10:00:00', 'yesterday']) {
      expect(TimestampSchema.safeParse(t).success).toBe(false);
    }
  });
});
