/**
 * Starts the console's tracing (instrumentation.ts calls this only when an OTEL_* variable may
 * switch it on): the project's tracing from @ahp/telemetry, with the service name `ahp-console`
 * (`OTEL_SERVICE_NAME` overrides it), and the gateway-call tracer gatewayFetch uses. A malformed
 * OTEL_* value stops the start-up with a message naming it, as it does for the gateway.
 */
import 'server-only';
import { setGatewayCallTracer } from './gateway-tracing';

export async function startConsoleTracing(): Promise<void> {
  // Left to Node at run time (serverExternalPackages): it loads the SDK itself, only when on.
  const { startTracing, tracingConfigFromEnv, traceGatewayCall } = await import('@ahp/telemetry');
  const tracing = await startTracing(tracingConfigFromEnv(process.env, 'ahp-console'));
  if (!tracing.enabled) return;
  setGatewayCallTracer((method, path, call) => traceGatewayCall(tracing, method, path, call));
  // No shutdown hook: `next start` owns SIGTERM; spans of the last OTEL_BSP_SCHEDULE_DELAY (5 s by default) may be lost with the process.
  process.stdout.write(`${JSON.stringify({ level: 'info', msg: 'OpenTelemetry tracing on', service: 'ahp-console' })}\n`);
}
