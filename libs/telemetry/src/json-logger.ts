/**
 * Structured logs of the AHP processes (gateway and oracle worker): one JSON object per line,
 * written by pino. Every line has `level` (the name: `debug`, `info`, `warn`, `error`), `time`
 * (ISO 8601), the bindings (`service`, `gatewayId` or `workerId`, a child's `component`…), the
 * call's fields and `msg`. Fixed keys across the control plane are `agentId`, `sessionId`,
 * `correlationId` (the hook id) and `jobId`, so one hook can be followed through gateway and worker
 * logs with one filter. Tools that read these lines (tools/chaos, the tests) match on `msg` and on
 * `level` as a name.
 *
 * Lines go to stderr by default: stdout is kept for the single `ready` line that start scripts and
 * tests wait for, so nothing a log line says can be mistaken for it.
 */
import { prepareLogFields, redactLogText, type LogFields, type Logger } from '@ahp/protocol';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { z } from 'zod';

/** Log levels, least severe first; a logger writes its level and every one after it. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * `AHP_LOG_LEVEL` as both processes read it: any case, surrounding blanks ignored, blank or unset
 * meaning `info`.
 */
export const LogLevelSchema = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toLowerCase() || undefined : value),
  z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
);

/** Options of {@link JsonLogger}. */
export interface JsonLoggerOptions {
  /** Lowest level written. @defaultValue `'info'` */
  readonly level?: LogLevel;
  /** Fields written on every line, e.g. `{ service, gatewayId }`. @defaultValue `{}` */
  readonly bindings?: Readonly<Record<string, unknown>>;
  /**
   * Receives each finished line, without its newline; a sink that throws is ignored.
   * @defaultValue stderr (fd 2), buffered: see {@link bufferedStderr}
   */
  readonly write?: (line: string) => void;
  /** @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

/**
 * How long a log line may wait in the stderr buffer, ms. Written one `write(2)` per line (pino's
 * synchronous mode) the logs cost 2–3 % of the gateway's CPU in the benchmark (one info line per
 * recorded signal response) and about 7 % of a worker's at 600 decisions/s, mostly in waking the
 * reader of the pipe for every line.
 */
const STDERR_FLUSH_MS = 100;
/** Bytes gathered before they are written at once. */
const STDERR_BATCH_BYTES = 8192;
/** Buffered lines beyond this are dropped rather than held while stderr does not drain (a stuck reader). */
const STDERR_MAX_BUFFER = 16 * 1024 * 1024;

/** stderr as a pino destination, one for every logger of the process (see {@link bufferedStderr}). */
let stderrDestination: DestinationStream | undefined;

/**
 * stderr, buffered: lines are written together once 8 KB have gathered or {@link STDERR_FLUSH_MS}
 * after the first one, whichever comes first. The buffer is flushed synchronously when the process
 * exits (`process.exit` and an uncaught exception included); only a SIGKILL loses the last lines,
 * and what must survive that is in Redis, not in the log.
 */
function bufferedStderr(): DestinationStream {
  // Synchronous writes of the gathered lines: an asynchronous one still in the thread pool when
  // `process.exit` runs is lost (the first 8 KB of a fatal-error burst went missing in CI), and
  // pino's exit flush cannot redo it. Batching, not asynchrony, is what saved the CPU.
  const stream = pino.destination({ dest: 2, sync: true, minLength: STDERR_BATCH_BYTES, maxLength: STDERR_MAX_BUFFER });
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
  if (write === undefined) {
    stderrDestination ??= bufferedStderr();
    return stderrDestination;
  }
  return {
    write: (line: string) => {
      try {
        write(line.endsWith('\n') ? line.slice(0, -1) : line);
      } catch {
        // Nowhere left to report a failing log sink; the work itself must go on.
      }
    },
  };
}

function rootLogger(options: JsonLoggerOptions): PinoLogger {
  const now = options.now ?? (() => new Date());
  return pino(
    {
      level: options.level ?? 'info',
      base: prepareLogFields({ ...options.bindings }),
      messageKey: 'msg',
      timestamp: () => `,"time":"${now().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }), log: prepareLogFields },
    },
    destinationFor(options.write),
  );
}

/**
 * The libraries' {@link Logger} as JSON lines; what every gateway and worker component logs
 * through. A call field named like a key the line has anyway (`level`, `time`, `msg`) is renamed
 * with a `field_` prefix, an undefined field is left out, Error values become
 * `{ name, message, code, stack, cause }` and secrets are blanked as `[redacted]`, in the fields and
 * in the message (see `prepareLogFields`). Logging never throws.
 */
export class JsonLogger implements Logger {
  private readonly pino: PinoLogger;

  /** @param inner used by {@link child}: the pino child logger to wrap instead of a new root. */
  constructor(options: JsonLoggerOptions = {}, inner?: PinoLogger) {
    this.pino = inner ?? rootLogger(options);
  }

  /** A logger that adds `bindings` to every line (e.g. `{ component: 'hooks' }`). */
  child(bindings: Record<string, unknown>): JsonLogger {
    return new JsonLogger({}, this.pino.child(prepareLogFields(bindings)));
  }

  /** Whether lines of `level` are written at all; lets callers skip building costly fields. */
  isEnabled(level: LogLevel): boolean {
    return this.pino.isLevelEnabled(level);
  }

  debug(fields: LogFields, message: string): void {
    this.pino.debug(fields, redactLogText(message));
  }

  info(fields: LogFields, message: string): void {
    this.pino.info(fields, redactLogText(message));
  }

  warn(fields: LogFields, message: string): void {
    this.pino.warn(fields, redactLogText(message));
  }

  error(fields: LogFields, message: string): void {
    this.pino.error(fields, redactLogText(message));
  }
}
