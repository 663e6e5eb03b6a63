/**
 * A small structured logger: one JSON object per line. Fixed keys across the control plane are
 * `agentId`, `sessionId`, `correlationId` (the hook id) and `jobId`, so one hook can be followed
 * through gateway and worker logs with a single filter.
 */
import type { Logger } from '@ahp/store';
import { LOG_LEVELS } from './config.js';
import type { LogLevel } from './config.js';

/** Options of {@link createJsonLogger}. */
export interface JsonLoggerOptions {
  /** @defaultValue `info` */
  readonly level?: LogLevel;
  /** Fields on every line, e.g. `{ service, workerId }`. @defaultValue `{}` */
  readonly base?: Readonly<Record<string, unknown>>;
  /** Receives each line, newline included. @defaultValue a synchronous write to stderr */
  readonly write?: (line: string) => void;
  /** @defaultValue `() => new Date()` */
  readonly now?: () => Date;
}

const RESERVED = new Set(['time', 'level', 'msg']);

/**
 * Creates a {@link Logger} that writes JSON lines: `time`, `level` and `msg` first, then the base
 * fields, then the call's fields (a field named like a fixed key is renamed with a `field_`
 * prefix, never dropped). Error values become `{ name, message, stack }`. Logging never throws: a
 * line that cannot be serialised is replaced by a line saying so.
 *
 * Lines go to stderr by default, keeping stdout for the one machine-readable `ready` line.
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const threshold = LOG_LEVELS.indexOf(options.level ?? 'info');
  const base = options.base ?? {};
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());

  function log(level: LogLevel, fields: Record<string, unknown>, msg: string): void {
    if (LOG_LEVELS.indexOf(level) < threshold) return;
    const time = now().toISOString();
    const entry: Record<string, unknown> = { time, level, msg };
    for (const source of [base, fields]) {
      for (const [key, value] of Object.entries(source)) {
        if (value === undefined) continue;
        entry[RESERVED.has(key) ? `field_${key}` : key] = value instanceof Error ? serializeError(value) : value;
      }
    }
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch (error) {
      line = JSON.stringify({ time, level, msg, log_error: `fields could not be serialised: ${String(error)}` });
    }
    try {
      write(`${line}\n`);
    } catch {
      // Nowhere left to report a failing log sink; the work itself must go on.
    }
  }

  return {
    debug: (fields, msg) => log('debug', fields, msg),
    info: (fields, msg) => log('info', fields, msg),
    warn: (fields, msg) => log('warn', fields, msg),
    error: (fields, msg) => log('error', fields, msg),
  };
}

function serializeError(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { name: error.name, message: error.message };
  if (error.stack !== undefined) out['stack'] = error.stack;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') out['code'] = code;
  return out;
}
