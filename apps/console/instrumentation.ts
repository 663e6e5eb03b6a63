/**
 * Next.js start-up hook: the console's OpenTelemetry tracing (docs/deploy.md "Tracing"), off
 * unless the standard OTEL_* variables switch it on, as for the gateway and the workers.
 *
 * Off costs nothing: without an exporter or an OTLP endpoint named (tracingMayBeOn), nothing is
 * imported, and gatewayFetch finds no tracer and only fetches. On, in the
 * Node.js runtime only: @ahp/telemetry starts the SDK as `ahp-console`, and each call the
 * console's server makes to the gateway becomes a span carrying `traceparent` (gateway-fetch.ts).
 */
import { tracingMayBeOn } from './src/lib/server/tracing-switch';

export async function register(): Promise<void> {
  if (process.env['NEXT_RUNTIME'] !== 'nodejs' || !tracingMayBeOn(process.env)) return;
  const { startConsoleTracing } = await import('./src/lib/server/console-tracing');
  await startConsoleTracing();
}
