import { describe, expect, it } from 'vitest';
import { McpCallSlots } from './mcp-call-slots.js';

describe('McpCallSlots', () => {
  it('gives an agent up to the limit on one server, and a slot back when a call ends', () => {
    const slots = new McpCallSlots();
    const first = slots.tryTake('files', 'a', 2);
    const second = slots.tryTake('files', 'a', 2);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(slots.tryTake('files', 'a', 2)).toBeUndefined();
    second!();
    expect(slots.inFlight('files', 'a')).toBe(1);
    expect(slots.tryTake('files', 'a', 2)).toBeDefined();
  });

  it('counts each agent and each server on its own', () => {
    const slots = new McpCallSlots();
    expect(slots.tryTake('files', 'a', 1)).toBeDefined();
    expect(slots.tryTake('files', 'a', 1)).toBeUndefined();
    expect(slots.tryTake('files', 'b', 1)).toBeDefined();
    expect(slots.tryTake('git', 'a', 1)).toBeDefined();
  });

  it('gives a slot back once, however often the release runs', () => {
    const slots = new McpCallSlots();
    const release = slots.tryTake('files', 'a', 2)!;
    slots.tryTake('files', 'a', 2);
    release();
    release();
    expect(slots.inFlight('files', 'a')).toBe(1);
  });
});
