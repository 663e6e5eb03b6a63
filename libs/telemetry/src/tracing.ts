/**
 * The process's tracing: the OpenTelemetry SDK when {@link tracingConfigFromEnv} switched it on,
 * otherwise nothing but the API's no-op tracer.
 *
 * The SDK, the exporter and bullmq-otel are imported dynamically, and only when tracing is on: a
 * process that does not trace never loads them. Like the OpenTelemetry API itself, the tracing
 * is process-wide: {@link startTracing} registers it once at start-up and {@link activeTracing}
 * hands it to whoever needs it (the hook paths check `enabled` before doing any span work).
 */
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import type { TracesSampler, TracingConfig } from './tracing-config.js';

/** The name of this library's tracer (instrumentation scope). */
export const TRACER_NAME = 'ahp';

/** What a process traces with. */
export interface Tracing {
  readonly enabled: boolean;
  /** The API's tracer: the SDK's when enabled, the no-op one otherwise. */
  readonly tracer: Tracer;
  /** BullMQ's `telemetry` option (bullmq-otel): carries the W3C trace context inside each job. Absent when off. */
  readonly bullmq: Telemetry | undefined;
  /** Exports what is buffered and stops; resolves at once when off. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, tracer: trace.getTracer(TRACER_NAME), bullmq: undefined, shutdown: () => Promise.resolve() };
let active: Tracing = OFF;

/** The tracing {@link startTracing} registered; off until then. */
export function activeTracing(): Tracing {
  return active;
}

/**
 * Starts tracing as `config` says and registers it as the active one. With tracing off it loads
 * nothing. With it on: a tracer provider with the configured sampler, a batch span processor
 * exporting OTLP over HTTP (protobuf; the exporter reads `OTEL_EXPORTER_OTLP_*` for the
 * endpoint, headers and timeout) or to the console, the W3C trace-context propagator, and an
 * AsyncLocalStorage context manager so spans started in callbacks find their parent.
 */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  if (!config.enabled) {
    active = OFF;
    return OFF;
  }
  const [{ TracerProvider, BatchSpanProcessor, ConsoleSpanExporter, AlwaysOnSampler, AlwaysOffSampler, ParentBasedSampler, TraceIdRatioBasedSampler }, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources, { BullMQOtel }] =
    await Promise.all([
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      import('bullmq-otel'),
    ]);
  const exporter = config.exporter === 'console' ? new ConsoleSpanExporter() : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
  const root = (name: TracesSampler) =>
    name.endsWith('always_off') ? new AlwaysOffSampler() : name.endsWith('traceidratio') ? new TraceIdRatioBasedSampler(config.ratio) : new AlwaysOnSampler();
  const sampler = config.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root: root(config.sampler) }) : root(config.sampler);
  // The env detector reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES; they override the process's own name.
  const resource = resources.resourceFromAttributes({ 'service.name': config.serviceName }).merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new TracerProvider({ resource, sampler, spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.scheduleDelayMs })] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  active = {
    enabled: true,
    tracer: provider.getTracer(TRACER_NAME),
    bullmq: new BullMQOtel({ tracerName: 'bullmq' }),
    shutdown: () => provider.shutdown(),
  };
  return active;
}
