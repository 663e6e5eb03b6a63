/**
 * The gateway's logging: the shared {@link JsonLogger} of @ahp/telemetry (JSON lines on stderr, the
 * same as the oracle worker's), and the bridge that routes Nest's own messages into it. Every
 * gateway service imports its logger type from here.
 */
import type { LoggerService } from '@nestjs/common';
import type { JsonLogger } from '@ahp/telemetry';

export { JsonLogger, type JsonLoggerOptions } from '@ahp/telemetry';

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
