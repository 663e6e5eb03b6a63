/**
 * What every process does to a log line's fields before writing it: secrets blanked with the
 * patterns of redact.ts (by field name at any depth, and inside text), errors made serialisable,
 * and the keys a JSON-lines logger writes itself kept free. Pure, shared by the gateway's and the
 * worker's loggers so that both write the same line for the same call.
 */
import { REDACTED, isSecretKey, redactSecrets, redactText } from './redact.js';

/**
 * Keys pino writes itself; a call field of that name is renamed `field_<name>` rather than
 * producing a line with the key twice (whichever a reader keeps would be wrong half the time).
 */
const RESERVED_KEYS = new Set(['level', 'time', 'msg']);

/** An error as a plain object: name, message, code, stack and cause (errors' own fields are not enumerable, so JSON would drop them). */
export function serializeError(error: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) out['code'] = code;
  if (error.stack !== undefined) out['stack'] = error.stack;
  if (error.cause !== undefined && depth < 3) out['cause'] = error.cause instanceof Error ? serializeError(error.cause, depth + 1) : error.cause;
  return out;
}

/** `isSecretKey` per field name, remembered: a process logs a few hundred distinct names, each on every line. */
const secretKeys = new Map<string, boolean>();

function isSecretField(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    secret = isSecretKey(key);
    if (secretKeys.size < 1024) secretKeys.set(key, secret);
  }
  return secret;
}

/** Text with credentials (token formats, `Bearer …`, a URL's password, `password=…`…) blanked; short ids skip the scan inside `redactText`. */
export function redactLogText(text: string): string {
  return redactText(text);
}

/** One field as it goes on the line: secrets blanked with the protocol's shared patterns, errors serialized. */
function prepareField(key: string, value: unknown): unknown {
  if (isSecretField(key)) return value === undefined || value === null ? value : REDACTED;
  if (typeof value === 'string') return redactLogText(value);
  if (value instanceof Error) return redactSecrets(serializeError(value));
  if (typeof value === 'object' && value !== null) return redactSecrets(value);
  return value;
}

/**
 * The call's fields as they go on the line: secrets redacted (`redactSecrets` of libs/protocol,
 * at any depth and inside text), errors serialized, reserved keys renamed. Copies only when
 * something changes, so the common line costs one scan of its keys. Logging a credential is a bug
 * at the call site; this is the net under it.
 *
 * The top level is walked here rather than by `redactSecrets` itself: remembering which field
 * names are secret and skipping the text scan of plain ids made a typical line about three
 * times cheaper (measured: ~10 µs against ~30 µs per line; docs/deploy.md).
 */
export function prepareLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(fields);
  let out: Record<string, unknown> | undefined;
  keys.forEach((key, index) => {
    const value = fields[key];
    const prepared = prepareField(key, value);
    const reserved = RESERVED_KEYS.has(key);
    if (out === undefined) {
      if (prepared === value && !reserved) return;
      // The first change: copy the fields before it, then write every field from here on.
      out = {};
      for (const earlier of keys.slice(0, index)) setField(out, earlier, fields[earlier]);
    }
    setField(out, reserved ? `field_${key}` : key, prepared);
  });
  return out ?? fields;
}

/** Defines rather than assigns, so a field named `__proto__` stays a field. */
function setField(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
