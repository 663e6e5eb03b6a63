/**
 * The logging seam of the SDK. A library must not decide where its diagnostics go, so every part
 * takes a {@link Logger} and the default drops everything.
 */

/** Structured fields of one log line. The SDK uses fixed keys: `sessionId`, `requestId`, `url`, `code`, … */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * What the SDK needs from a logger: four levels, a message and structured fields. pino, winston
 * and bunyan child loggers fit after a one-line adapter; `console` fits as it is.
 *
 * The SDK never logs the token, and never logs a URL that carries it.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger that drops every line: the default, so an application opts in to SDK diagnostics. */
export const silentLogger: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});
