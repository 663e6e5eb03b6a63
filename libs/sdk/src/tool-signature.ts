/**
 * The identity of a tool call, computed exactly as the server's circuit breaker does (libs/oracles
 * `toolCallSignature`), so the SDK's stutter count and the server's agree on what "identical" is.
 * Reimplemented here because the SDK may depend only on @ahp/protocol and must run in browsers.
 */

/**
 * JSON text of `value` with the keys of every object sorted (by UTF-16 code units) and no
 * whitespace: inputs that differ only in key order produce the same text. `undefined` becomes `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map((item: unknown) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The text a tool call's signature hashes: the tool name, a newline, the canonical JSON of the
 * input. Two calls are identical exactly when their keys are equal, so a local counter can use the
 * key directly and skip the (asynchronous, in browsers) hash.
 */
export function toolCallKey(toolName: string, input: unknown): string {
  return `${toolName}\n${canonicalJson(input)}`;
}

/**
 * The server's tool-call signature: SHA-256 (lowercase hex) of {@link toolCallKey}. Asynchronous
 * because it uses Web Crypto, which exists both in Node (≥ 20) and in browsers.
 */
export async function toolCallSignature(toolName: string, input: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(toolCallKey(toolName, input));
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
