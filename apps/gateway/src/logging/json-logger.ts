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
import { prepareLogFields, redactLogText } from '@ahp/protocol';
import type { Logger } from '@ahp/store';
import { pino, type DestinationStream, type Logger as PinoLogger, type LoggerOptions } from 'pino';
import type { LogLevel } from '../config/gateway-config.js';

/** Options of {@link JsonLogger}. */
export interface JsonLoggerOptions {
  /** Lowest level written. @defaultValue `'info'` */
  level?: LogLevel;
  /** Fields written on every line (service name, gateway id). */
  bindings?: Record<string, unknown>;
  /** Where a finished line goes (without its newline). @defaultValue stderr (fd 2), buffered up to 100 ms */
  write?: (line: string) => void;
}

/** How long a log line may wait in the stderr buffer, ms (the oracle worker buffers its log the same way). */
const STDERR_FLUSH_MS = 100;
/** Buffered lines beyond this are dropped rather than held while stderr does not drain (a stuck reader). */
const STDERR_MAX_BUFFER = 16 * 1024 * 1024;

/** stderr as a pino destination, shared by every logger of the process (see {@link bufferedStderr}). */
let stderrDestination: DestinationStream | undefined;

/**
 * stderr, buffered: lines are written together once 8 KB have gathered or {@link STDERR_FLUSH_MS}
 * after the first one. WHY: one synchronous `write(2)` per line (pino's `sync: true`) was 2–3 %
 * of the gateway's CPU in the benchmark, from the one info line per recorded signal response.
 * pino flushes the buffer synchronously when the process exits (`process.exit` and an uncaught
 * exception included); only a SIGKILL loses the last lines, and what must survive that is in Redis.
 */
function bufferedStderr(): DestinationStream {
  // Synchronous writes of the gathered lines: an asynchronous one still in the thread pool when
  // `process.exit` runs is lost (the first 8 KB of a fatal-error burst went missing in CI), and
  // pino's exit flush cannot redo it. Batching, not asynchrony, is what saved the CPU.
  const stream = pino.destination({ dest: 2, sync: true, minLength: 8192, maxLength: STDERR_MAX_BUFFER });
  let pending = false;
  const timer = setInterval(() => {
    if (!pending) return;
    pending = false;
    try {
      stream.flush();
    } catch {
      // A destroyed stream (stderr closed) has nowhere to write; logging must not fail the work.
    }
  }, STDERR_FLUSH_MS);
  timer.unref();
  // pino flushes only asynchronous destinations at exit; this one is flushed here, synchronously.
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // stderr closed: nowhere to write.
    }
  });
  return {
    write: (line: string) => {
      pending = true;
      stream.write(line);
    },
  };
}

function destinationFor(write: ((line: string) => void) | undefined): DestinationStream {
  if (write !== undefined) return { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) };
  stderrDestination ??= bufferedStderr();
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
