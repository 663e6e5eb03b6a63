import { describe, expect, it } from 'vitest';
import { parseJsonObjectInput } from './json-input';
import { editableJson } from './visible-json';

describe('parseJsonObjectInput', () => {
  it('accepts a JSON object', () => {
    expect(parseJsonObjectInput('{"command": "ls -la", "cwd": "/tmp"}')).toEqual({ ok: true, value: { command: 'ls -la', cwd: '/tmp' } });
    expect(parseJsonObjectInput(editableJson({ a: [1, { b: null }], hidden: 'x\u202ey' }))).toEqual({ ok: true, value: { a: [1, { b: null }], hidden: 'x\u202ey' } });
  });

  it('says what is wrong with anything else', () => {
    expect(parseJsonObjectInput('{"command": ')).toMatchObject({ ok: false, message: expect.stringContaining('not valid JSON') });
    expect(parseJsonObjectInput('[1, 2]')).toEqual({ ok: false, message: 'the input must be a JSON object ({…}), not an array' });
    expect(parseJsonObjectInput('null')).toEqual({ ok: false, message: 'the input must be a JSON object ({…}), not null' });
    expect(parseJsonObjectInput('"ls"')).toEqual({ ok: false, message: 'the input must be a JSON object ({…}), not a string' });
    expect(parseJsonObjectInput('{"__proto__": {"polluted": true}}')).toMatchObject({ ok: false, message: expect.stringContaining('not acceptable') });
  });
});
