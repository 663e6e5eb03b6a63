/**
 * Structured logs through pino: one JSON object per line. Fixed keys across the control plane are
 * `agentId`, `sessionId`, `correlationId` (the hook id) and `jobId`, so one hook can be followed
 * through gateway and worker logs with a single filter.
 *
 * The line format is the one the worker wrote before pino, which tools/chaos and the tests read:
 * `level` as a name (`debug`, `info`, `warn`, `error`), `time` in ISO 8601, the message in `msg`.
 */
import { prepareLogFields, redactLogText } from '@ahp/protocol';
import type { Logger } from '@ahp/store';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config.js';

/** Options of {@link createJsonLogger}. */
export interface JsonLoggerOptions {
  /** @defaultValue `info` */
  readonly level?: LogLevel;
  /** Fields on every line, e.g. `{ service, workerId }`. @defaultValue `{}` */
  readonly base?: Readonly<Record<string, unknown>>;
  /** Receives each line, newline included. @defaultValue buffered writes to stderr (fd 2), flushed within 100 ms and at exit */
  readonly write?: (line: string) => void;
  /** @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

/** The store's {@link Logger} plus child loggers that add fields to every line. */
export interface JsonLogger extends Logger {
  /** A logger whose lines also carry `bindings` (e.g. `{ component: 'hooks-config' }`). */
  child(bindings: Record<string, unknown>): JsonLogger;
}

/**
 * How long a log line may wait in the stderr buffer, ms. The worker logs one line per decision;
 * written one `write(2)` each (pino's synchronous mode) they cost about 7 % of a worker's CPU at
 * 600 decisions/s, mostly in waking the reader of the pipe for every line.
 */
const STDERR_FLUSH_MS = 100;
/** Buffered lines beyond this are dropped rather than held while stderr does not drain (a stuck reader). */
const STDERR_MAX_BUFFER = 16 * 1024 * 1024;

/** stderr for every logger of the process (see {@link bufferedStderr}). */
let stderrDestination: DestinationStream | undefined;

/**
 * stderr, buffered: lines are written together once 8 KB have gathered or {@link STDERR_FLUSH_MS}
 * after the first one, whichever comes first. pino flushes the buffer synchronously when the
 * process exits (`process.exit` included, as the worker's fatal-error path does); only a SIGKILL
 * loses the last few lines, which the signal log in Redis, not the log, has to survive.
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

/**
 * Creates a {@link JsonLogger} writing JSON lines: `level`, `time`, the base fields, the call's
 * fields and `msg` (a call field named like a fixed key is renamed with a `field_` prefix; an
 * undefined field is left out). Error values become `{ name, message, code, stack, cause }`.
 * Secrets are blanked as `[redacted]` (see {@link prepareLogFields}). Logging never throws:
 * unserialisable values (cycles, bigints) are written in a safe form, and a failing sink is ignored.
 *
 * Lines go to stderr by default, keeping stdout for the one machine-readable `ready` line.
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): JsonLogger {
  const write = options.write;
  const now = options.now ?? (() => new Date());
  let destination: DestinationStream;
  if (write === undefined) {
    stderrDestination ??= bufferedStderr();
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
