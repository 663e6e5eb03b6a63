import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { parseOnce } from './parse-once.js';

const Point = z.object({ x: z.number(), y: z.number() });
const Other = z.object({ x: z.number(), y: z.number() });

describe('parseOnce', () => {
  it('parses a value it has not produced, and hands its own output on without parsing it again', () => {
    const spy = vi.spyOn(Point, 'safeParse');
    const first = parseOnce(Point, { x: 1, y: 2, extra: true });
    expect(first).toEqual({ success: true, data: { x: 1, y: 2 } });
    expect(spy).toHaveBeenCalledTimes(1);

    const again = parseOnce(Point, first.data);
    expect(again.success && again.data).toBe(first.data);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });

  it('parses again with another schema, and parses a copy rebuilt from a parsed value', () => {
    const parsed = parseOnce(Point, { x: 1, y: 2 });
    if (!parsed.success) throw new Error('expected a parse');
    const spy = vi.spyOn(Other, 'safeParse');
    parseOnce(Other, parsed.data);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();

    const rebuilt = { ...parsed.data, y: 'not a number' };
    const result = parseOnce(Point, rebuilt);
    expect(result.success).toBe(false);
  });

  it('reports a failed parse as safeParse does and remembers nothing of it', () => {
    const bad = { x: 'a', y: 2 };
    const result = parseOnce(Point, bad);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['x']);
    const spy = vi.spyOn(Point, 'safeParse');
    expect(parseOnce(Point, bad).success).toBe(false);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});
