import { describe, expect, it } from 'vitest';
import type { JsonShapeLimits } from '@ahp/protocol';
import { scanHookBody } from './hook-body-scan.js';

const SMALL: JsonShapeLimits = { maxDepth: 4, maxKeys: 3, maxElements: 3, maxValues: 1000 };

function scan(text: string, limits?: JsonShapeLimits) {
  return scanHookBody(text, limits);
}

describe('scanHookBody: the event', () => {
  it('finds the top-level hook_event_name as Claude Code writes it', () => {
    const body = JSON.stringify({ session_id: 's', cwd: '/app', hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { content: 'ü'.repeat(10) } });
    expect(scan(body)).toEqual({ event: 'PreToolUse', problem: undefined });
  });

  it('finds it in a prefix cut off in the middle of the tool input', () => {
    const body = JSON.stringify({ session_id: 's', hook_event_name: 'Stop', tool_input: { content: 'x'.repeat(1000) } });
    expect(scan(body.slice(0, 80)).event).toBe('Stop');
  });

  it('ignores the name inside nested values and strings (a model-written tool input cannot choose the event)', () => {
    expect(scan('{"tool_input":{"hook_event_name":"SessionEnd"},"x":"\\"hook_event_name\\":\\"SessionEnd\\""}').event).toBeUndefined();
    expect(scan('{"tool_input":{"hook_event_name":"SessionEnd"},"hook_event_name":"PreToolUse"}').event).toBe('PreToolUse');
  });

  it('gives the name as written (the dialect judges it), nothing for a non-string one, and takes the last of two as JSON.parse does', () => {
    expect(scan('{"hook_event_name":"Notification"}').event).toBe('Notification');
    expect(scan('{"hook_event_name":1}').event).toBeUndefined();
    expect(scan('{"hook_event_name":{"a":"PreToolUse"}}').event).toBeUndefined();
    expect(scan('{"hook_event_name":"SessionEnd","hook_event_name":"PreToolUse"}').event).toBe('PreToolUse');
    expect(scan('["hook_event_name","PreToolUse"]').event).toBeUndefined();
  });

  it('does not read a key as a value or a value as a key', () => {
    expect(scan('{"a":"hook_event_name","b":"PreToolUse"}').event).toBeUndefined();
    expect(scan('{ "hook_event_name" : "UserPromptSubmit" , "prompt": "hi" }').event).toBe('UserPromptSubmit');
  });
});

describe('scanHookBody: the shape', () => {
  it('accepts a body within the limits', () => {
    expect(scan('{"a":{"b":{"c":[1,2,3]}},"d":"{{{{[[[["}', SMALL).problem).toBeUndefined();
  });

  it('reports nesting beyond the limit, and still finds the event', () => {
    expect(scan('{"hook_event_name":"PreToolUse","a":[[[[1]]]]}', SMALL)).toEqual({ event: 'PreToolUse', problem: 'nested deeper than 4 levels' });
    const deep = `{"tool_input":${'['.repeat(200_000)}${']'.repeat(200_000)},"hook_event_name":"PostToolUse"}`;
    expect(scan(deep)).toEqual({ event: 'PostToolUse', problem: 'nested deeper than 32 levels' });
  });

  it('reports objects with too many keys and arrays with too many elements, at any depth', () => {
    expect(scan('{"a":{"k1":1,"k2":2,"k3":3,"k4":4}}', SMALL).problem).toBe('object with more than 3 keys');
    expect(scan('{"a":[1,2,3,4]}', SMALL).problem).toBe('array with more than 3 elements');
    expect(scan('{"a":[1,2,3],"b":[1,2,3],"c":{"x":[1,2,3]}}', SMALL).problem).toBeUndefined();
  });

  it('counts commas inside strings as text', () => {
    expect(scan('{"a":[",,,,,,"]}', SMALL).problem).toBeUndefined();
  });
});
