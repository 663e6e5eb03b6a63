import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAME_SHAPE_LIMITS, measureJsonShape, type JsonShapeLimits } from './json-shape-limits.js';

/** The reference: the same counts taken from the parsed value. */
function shapeOf(value: unknown): { values: number; depth: number; keys: number; elements: number } {
  let values = 0;
  let depth = 0;
  let keys = 0;
  let elements = 0;
  const stack: { value: unknown; level: number }[] = [{ value, level: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    values += 1;
    if (item.value === null || typeof item.value !== 'object') continue;
    const level = item.level + 1;
    depth = Math.max(depth, level);
    const children = Array.isArray(item.value) ? (item.value as unknown[]) : Object.values(item.value);
    if (Array.isArray(item.value)) elements = Math.max(elements, children.length);
    else keys = Math.max(keys, children.length);
    for (const child of children) stack.push({ value: child, level });
  }
  return { values, depth, keys, elements };
}

const UNLIMITED: JsonShapeLimits = { maxDepth: 10_000, maxKeys: 1_000_000, maxElements: 1_000_000, maxValues: 10_000_000 };
const jsonArb = fc.jsonValue({ maxDepth: 6 });
/** The same value written compactly or indented, as different encoders do. */
const textArb = fc.tuple(jsonArb, fc.constantFrom(undefined, 1, 2, '\t')).map(([value, indent]) => ({ value, text: JSON.stringify(value, null, indent) }));

describe('measureJsonShape', () => {
  it('counts values and depth exactly as JSON.parse builds them', () => {
    fc.assert(
      fc.property(textArb, ({ value, text }) => {
        const reference = shapeOf(JSON.parse(text));
        const shape = measureJsonShape(text, UNLIMITED);
        expect(shape).toMatchObject({ ok: true, values: reference.values, depth: reference.depth });
        expect(shapeOf(value).values).toBe(reference.values);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses exactly the values over a limit', () => {
    const limitsArb = fc.record({
      maxDepth: fc.integer({ min: 0, max: 7 }),
      maxKeys: fc.integer({ min: 0, max: 8 }),
      maxElements: fc.integer({ min: 0, max: 8 }),
      maxValues: fc.integer({ min: 0, max: 60 }),
    });
    fc.assert(
      fc.property(textArb, limitsArb, ({ text }, limits) => {
        const reference = shapeOf(JSON.parse(text));
        const within =
          reference.depth <= limits.maxDepth && reference.keys <= limits.maxKeys && reference.elements <= limits.maxElements && reference.values <= limits.maxValues;
        expect(measureJsonShape(text, limits).ok).toBe(within);
      }),
      { numRuns: 1000 },
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(typeof measureJsonShape(text).ok).toBe('boolean');
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom('{', '}', '[', ']', '"', '\\', ',', ':', '1', ' ', 'a'), { maxLength: 200 }), (chars) => {
        expect(typeof measureJsonShape(chars.join(''), { maxDepth: 3, maxKeys: 3, maxElements: 3, maxValues: 20 }).ok).toBe('boolean');
      }),
    );
  });

  it('reports the first level too deep and where it is', () => {
    const depth = 450_000;
    const text = `{"type":"hook","id":"h-1","context":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const shape = measureJsonShape(text);
    expect(shape).toMatchObject({ ok: false, violation: 'depth', message: 'nested deeper than 64 levels', id: 'h-1', type: 'hook', depth: 65 });
    if (!shape.ok) expect(shape.offset).toBe(text.indexOf('[') + 63);
  });

  it('counts every element of an array and every key written in an object, repeats included', () => {
    expect(measureJsonShape(`[${'0,'.repeat(100_000)}0]`)).toMatchObject({ ok: false, violation: 'entries', message: 'array with more than 100000 elements' });
    expect(measureJsonShape(`[${'0,'.repeat(99_999)}0]`)).toMatchObject({ ok: true, values: 100_001 });
    const repeated = `{${Array.from({ length: 1001 }, () => '"a":1').join(',')}}`;
    expect(measureJsonShape(repeated)).toMatchObject({ ok: false, violation: 'entries', message: 'object with more than 1000 keys' });
    const wide = `[${Array.from({ length: 400 }, () => `[${'0,'.repeat(599)}0]`).join(',')}]`;
    expect(measureJsonShape(wide)).toMatchObject({ ok: false, violation: 'values', message: `more than ${FRAME_SHAPE_LIMITS.maxValues} values` });
  });

  it('captures the outermost id and type only, unescaped and short', () => {
    expect(measureJsonShape('{"id":"a","x":{"id":"inner","type":"t"},"type":"hook"}')).toMatchObject({ ok: true, id: 'a', type: 'hook' });
    expect(measureJsonShape('{"i\\u0064":"a","id":"b\\n"}')).toMatchObject({ ok: true, id: undefined });
    expect(measureJsonShape(`{"id":"${'x'.repeat(129)}","type":3}`)).toMatchObject({ ok: true, id: undefined, type: undefined });
    expect(measureJsonShape('{"id":["a"],"type":{"type":"x"}}')).toMatchObject({ ok: true, id: undefined, type: undefined });
    expect(measureJsonShape('[{"id":"a"}]')).toMatchObject({ ok: true, id: undefined });
    // The last one wins, as in JSON.parse.
    expect(measureJsonShape('{"id":"a","id":5,"type":"x","type":"y"}')).toMatchObject({ ok: true, id: undefined, type: 'y' });
    // Read after the violation too, so the refusal still names the request.
    expect(measureJsonShape(`{"type":{${Array.from({ length: 1001 }, (_, i) => `"k${i}":0`).join(',')}},"id":"late"}`)).toMatchObject({ ok: false, violation: 'entries', id: 'late', type: undefined });
    expect(measureJsonShape(`{"type":"hook","x":${'['.repeat(100)}${']'.repeat(100)},"id":"late"}`)).toMatchObject({ ok: false, violation: 'depth', id: 'late', type: 'hook' });
    // Quotes, brackets and commas inside strings are text, not structure.
    expect(measureJsonShape('{"a":"[[[{{,\\"]]","b":["}"]}')).toMatchObject({ ok: true, values: 4, depth: 2 });
  });
  it('captures the keys another format names itself by, and those only', () => {
    const keys = { id: 'session_id', type: 'hook_event_name' };
    const body = '{"session_id":"s1","hook_event_name":"PreToolUse","tool_input":{"hook_event_name":"Stop"},"id":"x","type":"y"}';
    expect(measureJsonShape(body, FRAME_SHAPE_LIMITS, keys)).toMatchObject({ ok: true, id: 's1', type: 'PreToolUse' });
    // A prefix cut off in the middle still names it.
    expect(measureJsonShape(body.slice(0, 60), FRAME_SHAPE_LIMITS, keys)).toMatchObject({ id: 's1', type: 'PreToolUse' });
  });
});
