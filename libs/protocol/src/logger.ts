/**
 * The one logging seam of the libraries: the store and the SDK take a {@link Logger} and never
 * decide where their diagnostics go. It lives in the protocol because that is the one library every
 * other may import (the SDK and the console may import nothing else), and it is only a type.
 *
 * Fields come first and the message second, as pino and bunyan take them: their loggers (and the
 * gateway's and worker's JSON loggers) fit as they are; `console` fits too.
 */

/** Structured fields of one log line. Fixed keys: `agentId`, `sessionId`, `correlationId`, `jobId`, `requestId`, `code`, … */
export type LogFields = Readonly<Record<string, unknown>>;

/** Four levels, each taking the line's fields and its message. */
export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
}

/** A logger that drops every line: the default wherever a caller does not pass one. */
export const silentLogger: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});
