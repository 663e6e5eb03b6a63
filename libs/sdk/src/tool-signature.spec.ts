import { describe, expect, it } from 'vitest';
import { canonicalJson, toolCallKey, toolCallSignature } from './tool-signature.js';

/**
 * Expected values computed once with `canonicalJson` / `toolCallSignature` of @ahp/oracles (the
 * server's circuit breaker). The SDK may not depend on that library, so they are pinned here: if
 * either side changes its definition, this test (or the oracles' own) shows the drift.
 */
const SERVER_SIGNATURES: [string, unknown, string, string][] = [
  ['bash', { command: 'ls -la', cwd: '/tmp' }, '{"command":"ls -la","cwd":"/tmp"}', 'c3430466c9a1a7c11c8e23328fcf3057189c44d86839527ac6e61bb4574410d4'],
  ['bash', { cwd: '/tmp', command: 'ls -la' }, '{"command":"ls -la","cwd":"/tmp"}', 'c3430466c9a1a7c11c8e23328fcf3057189c44d86839527ac6e61bb4574410d4'],
  [
    'read_file',
    { path: 'ü/日本.txt', range: [1, 2.5, null], nested: { z: true, a: 'x' } },
    '{"nested":{"a":"x","z":true},"path":"ü/日本.txt","range":[1,2.5,null]}',
    '24f8c96d1d4e72d89f364d8bf25cb77d6078f08e576e32c8912255ae73d073dd',
  ],
  ['noop', undefined, 'null', '7ba05efebdb1d215b9fcf6c3b8c333013960f135cee2d251f5c7576fe22b1501'],
  ['edit', { 'a"b': ['\n', { y: 1, x: [] }] }, '{"a\\"b":["\\n",{"x":[],"y":1}]}', 'e113d6bcf41eac8ec660b46018fab334c2cc20c8afb093b19aa49bc36aa6b381'],
];

describe('tool-call signature', () => {
  it.each(SERVER_SIGNATURES)('agrees with the server for %s %j', async (name, input, canonical, signature) => {
    expect(canonicalJson(input)).toBe(canonical);
    expect(await toolCallSignature(name, input)).toBe(signature);
  });

  it('ignores key order and distinguishes inputs', () => {
    expect(toolCallKey('bash', { a: 1, b: 2 })).toBe(toolCallKey('bash', { b: 2, a: 1 }));
    expect(toolCallKey('bash', { a: 1 })).not.toBe(toolCallKey('bash', { a: 2 }));
    expect(toolCallKey('bash', { a: 1 })).not.toBe(toolCallKey('sh', { a: 1 }));
  });
});
