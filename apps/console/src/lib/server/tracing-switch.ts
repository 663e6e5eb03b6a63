/**
 * Whether the OTEL_* variables could switch tracing on: an exporter or an OTLP endpoint is named.
 * instrumentation.ts asks this before importing anything, so a console that does not trace loads
 * nothing for it; @ahp/telemetry's tracingConfigFromEnv then decides (it is never on without one
 * of these three, which tracing-switch.spec.ts checks against it).
 */
export function tracingMayBeOn(env: Readonly<Record<string, string | undefined>>): boolean {
  return ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'].some((name) => (env[name]?.trim() ?? '') !== '');
}
