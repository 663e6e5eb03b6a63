/**
 * Structured logs through pino: one JSON object per line. Fixed keys across the control plane are
 * `agentId`, `sessionId`, `correlationId` (the hook id) and `jobId`, so one hook can be followed
 * through gateway and worker logs with a single filter.
 *
 * The line format is the one the worker wrote before pino, which tools/chaos and the tests read:
 * `level` as a name (`debug`, `info`, `warn`, `error`), `time` in ISO 8601, the message in `msg`.
 */
import { REDACTED, isSecretKey, redactSecrets, redactText } from '@ahp/protocol';
import type { Logger } from '@ahp/store';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

/** Options of {@link createJsonLogger}. */
export interface JsonLoggerOptions {
  /** @defaultValue `info` */
  readonly level?: LogLevel;
  /** Fields on every line, e.g. `{ service, workerId }`. @defaultValue `{}` */
  readonly base?: Readonly<Record<string, unknown>>;
  /** Receives each line, newline included. @defaultValue a synchronous write to stderr (fd 2) */
  readonly write?: (line: string) => void;
  /** @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

/** The store's {@link Logger} plus child loggers that add fields to every line. */
export interface JsonLogger extends Logger {
  /** A logger whose lines also carry `bindings` (e.g. `{ component: 'hooks-config' }`). */
  child(bindings: Record<string, unknown>): JsonLogger;
}

/** Keys pino writes itself; a call field of that name is renamed `field_<name>`, never dropped or doubled. */
const RESERVED_KEYS = new Set(['time', 'level', 'msg']);

/** stderr for every logger of the process: synchronous writes, so the last lines before an exit are not lost. */
let stderrDestination: DestinationStream | undefined;

/**
 * Creates a {@link JsonLogger} writing JSON lines: `level`, `time`, the base fields, the call's
 * fields and `msg` (a call field named like a fixed key is renamed with a `field_` prefix; an
 * undefined field is left out). Error values become `{ name, message, code, stack, cause }`.
 * Secrets are blanked as `[REDACTED]` (see {@link prepareLogFields}). Logging never throws:
 * unserialisable values (cycles, bigints) are written in a safe form, and a failing sink is ignored.
 *
 * Lines go to stderr by default, keeping stdout for the one machine-readable `ready` line.
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): JsonLogger {
  const write = options.write;
  const now = options.now ?? (() => new Date());
  let destination: DestinationStream;
  if (write === undefined) {
    stderrDestination ??= pino.destination({ dest: 2, sync: true });
    destination = stderrDestination;
  } else {
    destination = {
      write: (line: string) => {
        try {
          write(line);
        } catch {
          // Nowhere left to report a failing log sink; the work itself must go on.
        }
      },
    };
  }
  const root = pino(
    {
      level: options.level ?? 'info',
      base: prepareLogFields({ ...options.base }),
      messageKey: 'msg',
      timestamp: () => `,"time":"${now().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }), log: prepareLogFields },
    },
    destination,
  );
  return wrap(root);
}

function wrap(inner: PinoLogger): JsonLogger {
  return {
    debug: (fields, msg) => inner.debug(fields, redactLogText(msg)),
    info: (fields, msg) => inner.info(fields, redactLogText(msg)),
    warn: (fields, msg) => inner.warn(fields, redactLogText(msg)),
    error: (fields, msg) => inner.error(fields, redactLogText(msg)),
    child: (bindings) => wrap(inner.child(prepareLogFields(bindings))),
  };
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

/** Text without whitespace, `@` or `=` cannot hold a credential `redactText` recognises, so most ids skip its scan. */
const MAY_HOLD_CREDENTIAL = /[\s@=]/;

/** Text with credentials (`Bearer …`, a URL's password, `token=` parameters) blanked. */
export function redactLogText(text: string): string {
  return MAY_HOLD_CREDENTIAL.test(text) ? redactText(text) : text;
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
 * names are secret and skipping the text scan of plain ids made a typical line about three times
 * cheaper (measured: ~10 µs against ~30 µs per line; docs/deploy.md).
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

/** An error as a plain object (its own fields are not enumerable, so JSON would drop them). */
export function serializeError(error: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) out['code'] = code;
  if (error.stack !== undefined) out['stack'] = error.stack;
  if (error.cause !== undefined && depth < 3) out['cause'] = error.cause instanceof Error ? serializeError(error.cause, depth + 1) : error.cause;
  return out;
}
