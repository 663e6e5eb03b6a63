import { describe, expect, it } from 'vitest';
import { hookToolCall } from './hook-tool-call.js';

describe('hookToolCall', () => {
  it('reads the call of a pre-tool-use and of a post-tool-use context', () => {
    expect(hookToolCall({ tool: { name: 'Bash', input: { command: 'ls' } } })).toEqual({ name: 'Bash', input: { command: 'ls' } });
    expect(hookToolCall({ tool: { name: 'Bash', input: {}, ok: true, output: 'x', response: { a: 1 } }, extra: {} })).toEqual({ name: 'Bash', input: {} });
  });

  it.each([
    ['no tool', {}],
    ['a bare string tool', { tool: 'Bash' }],
    ['an array tool', { tool: ['Bash'] }],
    ['a null tool', { tool: null }],
    ['a tool without input', { tool: { name: 'Bash' } }],
    ['a string input', { tool: { name: 'Bash', input: 'rm -rf /' } }],
    ['an array input', { tool: { name: 'Bash', input: ['rm'] } }],
    ['an empty name', { tool: { name: '', input: {} } }],
    ['a name that is not a string', { tool: { name: 7, input: {} } }],
    ['an overlong name', { tool: { name: 'x'.repeat(257), input: {} } }],
    ['an unknown field beside the call', { tool: { name: 'Bash', input: {}, tool_name: 'Read' } }],
    ['a context that is not an object', 'Bash'],
    ['a null context', null],
  ])('reads no call from %s (the caller fails closed)', (_, context) => {
    expect(hookToolCall(context)).toBeUndefined();
  });

  it('reads only own fields: an inherited tool, name or input is not the agent\'s call', () => {
    expect(hookToolCall(Object.create({ tool: { name: 'Bash', input: {} } }) as object)).toBeUndefined();
    expect(hookToolCall({ tool: Object.assign(Object.create({ name: 'Bash' }) as object, { input: {} }) })).toBeUndefined();
    expect(hookToolCall({ tool: { name: 'Bash', input: new Map() } })).toBeUndefined();
  });

  it('is not fooled by a __proto__ key parsed from JSON', () => {
    expect(hookToolCall(JSON.parse('{"tool":{"name":"Bash","input":{},"__proto__":{"x":1}}}'))).toBeUndefined();
    expect(hookToolCall(JSON.parse('{"__proto__":{"tool":{"name":"Bash","input":{}}}}'))).toBeUndefined();
  });
});
