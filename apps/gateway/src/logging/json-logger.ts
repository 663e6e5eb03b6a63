/**
 * Structured logs: one JSON object per line on stderr, written by pino. Every line has `level`
 * (the name: `debug`, `info`, `warn`, `error`), `time` (ISO 8601), the bindings (`service`,
 * `gatewayId`, a child's `component`…), the call's fields (`agentId`, `sessionId`,
 * `correlationId`, `jobId`, …) and `msg`. Tools that read these lines (tools/chaos, the tests)
 * match on `msg` and on `level` as a name, so both stay as they were before pino.
 *
 * stdout is kept for the single `ready` line that start scripts and tests wait for, so nothing a
 * log line says can be mistaken for it.
 */
import type { LoggerService } from '@nestjs/common';
import { REDACTED, isSecretKey, redactSecrets, redactText } from '@ahp/protocol';
import type { Logger } from '@ahp/store';
import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import type { LogLevel } from '../config/gateway-config.js';

/** Options of {@link JsonLogger}. */
export interface JsonLoggerOptions {
  /** Lowest level written. @defaultValue `'info'` */
  level?: LogLevel;
  /** Fields written on every line (service name, gateway id). */
  bindings?: Record<string, unknown>;
  /** Where a finished line goes (without its newline). @defaultValue a synchronous write to stderr (fd 2) */
  write?: (line: string) => void;
}

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

/** stderr as a pino destination, shared by every logger of the process: synchronous writes, so no line is lost at exit. */
let stderrDestination: DestinationStream | undefined;

function destinationFor(write: ((line: string) => void) | undefined): DestinationStream {
  if (write !== undefined) return { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) };
  stderrDestination ??= pino.destination({ dest: 2, sync: true });
  return stderrDestination;
}

function pinoOptions(options: JsonLoggerOptions): LoggerOptions {
  return {
    level: options.level ?? 'info',
    base: prepareLogFields({ ...options.bindings }),
    messageKey: 'msg',
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: {
      level: (label) => ({ level: label }),
      log: prepareLogFields,
    },
  };
}

/** The store's {@link Logger} contract as JSON lines; also what every gateway service logs through. */
export class JsonLogger implements Logger {
  private readonly pino: PinoLogger;

  /** @param inner used by {@link child}: the pino child logger to wrap instead of a new root. */
  constructor(options: JsonLoggerOptions = {}, inner?: PinoLogger) {
    this.pino = inner ?? pino(pinoOptions(options), destinationFor(options.write));
  }

  /** A logger that adds `bindings` to every line (e.g. `{ component: 'hooks' }`). */
  child(bindings: Record<string, unknown>): JsonLogger {
    return new JsonLogger({}, this.pino.child(prepareLogFields(bindings)));
  }

  /** Whether lines of `level` are written at all; lets callers skip building costly fields. */
  isEnabled(level: LogLevel): boolean {
    return this.pino.isLevelEnabled(level);
  }

  debug(fields: Record<string, unknown>, message: string): void {
    this.pino.debug(fields, redactLogText(message));
  }

  info(fields: Record<string, unknown>, message: string): void {
    this.pino.info(fields, redactLogText(message));
  }

  warn(fields: Record<string, unknown>, message: string): void {
    this.pino.warn(fields, redactLogText(message));
  }

  error(fields: Record<string, unknown>, message: string): void {
    this.pino.error(fields, redactLogText(message));
  }
}

/**
 * Nest's own logging (module init, route mapping, exceptions it catches) routed into the same
 * JSON lines. Nest calls `log(message, context)` and `error(message, stack, context)`. Its `log`
 * level is start-up chatter (one line per module and route), so it is written as debug; Nest's
 * warnings and errors keep their level.
 */
export class NestLoggerBridge implements LoggerService {
  constructor(private readonly logger: JsonLogger) {}

  log(message: unknown, ...optional: unknown[]): void {
    this.logger.debug(this.fields(optional), this.text(message));
  }

  error(message: unknown, ...optional: unknown[]): void {
    const [stack, ...rest] = optional;
    const fields = this.fields(typeof stack === 'string' && rest.length > 0 ? rest : optional);
    if (typeof stack === 'string' && rest.length > 0) fields['stack'] = stack;
    if (message instanceof Error) fields['error'] = message;
    this.logger.error(fields, this.text(message));
  }

  warn(message: unknown, ...optional: unknown[]): void {
    this.logger.warn(this.fields(optional), this.text(message));
  }

  debug(message: unknown, ...optional: unknown[]): void {
    this.logger.debug(this.fields(optional), this.text(message));
  }

  verbose(message: unknown, ...optional: unknown[]): void {
    this.logger.debug(this.fields(optional), this.text(message));
  }

  fatal(message: unknown, ...optional: unknown[]): void {
    this.logger.error({ ...this.fields(optional), fatal: true }, this.text(message));
  }

  private text(message: unknown): string {
    if (typeof message === 'string') return message;
    if (message instanceof Error) return message.message;
    try {
      return JSON.stringify(message) ?? String(message);
    } catch {
      return String(message);
    }
  }

  /** Nest passes the context (the emitting class) as the last string argument. */
  private fields(optional: readonly unknown[]): Record<string, unknown> {
    const last = optional[optional.length - 1];
    return typeof last === 'string' ? { context: last } : {};
  }
}
