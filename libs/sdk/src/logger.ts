/**
 * The logging seam of the SDK. A library must not decide where its diagnostics go, so every part
 * takes a {@link Logger} and the default drops everything. The shape is the one every AHP library
 * takes, defined in @ahp/protocol: `logger.warn(fields, message)`, as pino and bunyan loggers take
 * it, so they fit as they are; `console` fits too.
 *
 * The SDK uses fixed keys (`sessionId`, `requestId`, `url`, `code`, …), never logs the token, and
 * never logs a URL that carries it.
 */
export { silentLogger, type LogFields, type Logger } from '@ahp/protocol';
