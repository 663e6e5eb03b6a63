/**
 * Structured logs: one JSON object per line on stderr, with fixed keys (`time`, `level`,
 * `service`, `gatewayId`, `msg`) followed by the call's fields (`agentId`, `sessionId`,
 * `correlationId`, `jobId`, …).
 *
 * stdout is kept for the single `ready` line that start scripts and tests wait for, so nothing a
 * log line says can be mistaken for it.
 */
import type { LoggerService } from '@nestjs/common';
import type { Logger } from '@ahp/store';
import { LOG_LEVELS, type LogLevel } from '../config/gateway-config.js';

/** Options of {@link JsonLogger}. */
export interface JsonLoggerOptions {
  /** Lowest level written. @defaultValue `'info'` */
  level?: LogLevel;
  /** Fields written on every line (service name, gateway id). */
  bindings?: Record<string, unknown>;
  /** Where a finished line goes. @defaultValue a write to `process.stderr` */
  write?: (line: string) => void;
}

const RANK: Readonly<Record<LogLevel, number>> = Object.fromEntries(LOG_LEVELS.map((level, index) => [level, index])) as Record<
  LogLevel,
  number
>;

/** Errors do not serialize with JSON.stringify (their fields are not enumerable); this keeps what matters. */
function toJsonable(value: unknown): unknown {
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) out['code'] = code;
    if (value.stack !== undefined) out['stack'] = value.stack;
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** The store's {@link Logger} contract as JSON lines; also what every gateway service logs through. */
export class JsonLogger implements Logger {
  private readonly rank: number;
  private readonly bindings: Record<string, unknown>;
  private readonly sink: (line: string) => void;

  constructor(private readonly options: JsonLoggerOptions = {}) {
    this.rank = RANK[options.level ?? 'info'];
    this.bindings = options.bindings ?? {};
    this.sink = options.write ?? ((line) => void process.stderr.write(`${line}\n`));
  }

  /** A logger that adds `bindings` to every line (e.g. `{ component: 'hooks' }`). */
  child(bindings: Record<string, unknown>): JsonLogger {
    return new JsonLogger({ ...this.options, bindings: { ...this.bindings, ...bindings } });
  }

  /** Whether lines of `level` are written at all; lets callers skip building costly fields. */
  isEnabled(level: LogLevel): boolean {
    return RANK[level] >= this.rank;
  }

  debug(fields: Record<string, unknown>, message: string): void {
    this.write('debug', fields, message);
  }

  info(fields: Record<string, unknown>, message: string): void {
    this.write('info', fields, message);
  }

  warn(fields: Record<string, unknown>, message: string): void {
    this.write('warn', fields, message);
  }

  error(fields: Record<string, unknown>, message: string): void {
    this.write('error', fields, message);
  }

  private write(level: LogLevel, fields: Record<string, unknown>, message: string): void {
    if (RANK[level] < this.rank) return;
    const record = { time: new Date().toISOString(), level, ...this.bindings, msg: message, ...fields };
    let line: string;
    try {
      line = JSON.stringify(record, (_key, value: unknown) => toJsonable(value));
    } catch {
      // A cyclic field must not take the process down through its logger.
      line = JSON.stringify({ time: record.time, level, ...this.bindings, msg: message, logError: 'fields could not be serialized' });
    }
    this.sink(line);
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
