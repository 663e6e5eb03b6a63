/**
 * @ahp/telemetry: what the AHP processes tell about themselves: structured JSON logs, and optional
 * OpenTelemetry tracing, off unless the standard OTEL_* variables switch it on.
 */
export { TRACES_SAMPLERS, TracingConfigError, tracingConfigFromEnv } from './tracing-config.js';
export type { TracesSampler, TracingConfig, TracingOn } from './tracing-config.js';
export { TRACER_NAME, activeTracing, startTracing } from './tracing.js';
export type { Tracing } from './tracing.js';
export { HOOK_ATTRIBUTES, HOOK_SPANS } from './hook-spans.js';
export { OPERATOR_ATTRIBUTES, OPERATOR_SPANS, operatorRequestTracer, traceGatewayCall } from './operator-spans.js';
export type { HttpAnswer } from './operator-spans.js';
export { JsonLogger, LOG_LEVELS, LogLevelSchema } from './json-logger.js';
export type { JsonLoggerOptions, LogLevel } from './json-logger.js';
