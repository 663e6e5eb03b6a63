/**
 * Where the console's tracing (instrumentation.ts, when the OTEL_* variables switch it on) leaves
 * the function that wraps a call to the gateway in a span. A process-wide slot on `globalThis`:
 * Next compiles instrumentation.ts and the routes into separate bundles, which share no module
 * state. Empty while tracing is off, and {@link gatewayFetch} then does nothing but the fetch.
 */
import 'server-only';

/** Runs `call` in a span of the gateway call, passing the headers that carry the trace (`traceparent`). */
export type GatewayCallTracer = (method: string, path: string, call: (headers: Record<string, string>) => Promise<Response>) => Promise<Response>;

const SLOT = Symbol.for('ahp.console.gateway-call-tracer');
type Slot = { [SLOT]?: GatewayCallTracer };

/** Installs the tracer (once, at start-up, only with tracing on). */
export function setGatewayCallTracer(tracer: GatewayCallTracer): void {
  (globalThis as Slot)[SLOT] = tracer;
}

/** The installed tracer; undefined while tracing is off. */
export function gatewayCallTracer(): GatewayCallTracer | undefined {
  return (globalThis as Slot)[SLOT];
}
