/**
 * Which tracing the standard OpenTelemetry variables ask for. Pure: reads only the object given.
 *
 * Off unless asked for: `OTEL_TRACES_EXPORTER=otlp` (or `console`), or an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) with no exporter named.
 * The specification's default exporter is `otlp`; ours is none, so a deployment that never heard
 * of tracing pays nothing for it. `OTEL_SDK_DISABLED=true` and `OTEL_TRACES_EXPORTER=none` switch
 * it off whatever else is set.
 */
import { z } from 'zod';

/** The samplers of the specification's `OTEL_TRACES_SAMPLER`. */
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** Tracing switched on: where spans go and which are kept. */
export interface TracingOn {
  readonly enabled: true;
  readonly exporter: 'otlp' | 'console';
  /** The process's own `service.name`; `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` override it (read by the resource's env detector). */
  readonly serviceName: string;
  readonly sampler: TracesSampler;
  /** `OTEL_TRACES_SAMPLER_ARG` for the ratio samplers. @defaultValue 1 */
  readonly ratio: number;
  /** `OTEL_BSP_SCHEDULE_DELAY`: the longest a finished span waits before its batch is exported. @defaultValue 5000 */
  readonly scheduleDelayMs: number;
}
export type TracingConfig = { readonly enabled: false } | TracingOn;

/** An `OTEL_*` value this process cannot honour; the message names the variable. */
export class TracingConfigError extends Error {
  override readonly name = 'TracingConfigError';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
  }
}

const RatioSchema = z.coerce.number().min(0).max(1);

function value(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
}

/**
 * Reads the `OTEL_*` variables of `env` this process honours: `OTEL_SDK_DISABLED`,
 * `OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT`, `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`
 * (only `http/protobuf`, the specification's default), `OTEL_TRACES_SAMPLER`
 * `OTEL_TRACES_SAMPLER_ARG` and `OTEL_BSP_SCHEDULE_DELAY`. The exporter reads the endpoint, headers and timeout variables
 * itself; the resource reads `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`.
 * @throws TracingConfigError for a value it cannot honour (fail fast rather than trace nothing silently)
 */
export function tracingConfigFromEnv(env: Readonly<Record<string, string | undefined>>, defaultServiceName: string): TracingConfig {
  if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { enabled: false };
  const exporters = (value(env, 'OTEL_TRACES_EXPORTER') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  const endpoint = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (exporters.includes('none')) return { enabled: false };
  if (exporters.length > 1) throw new TracingConfigError('OTEL_TRACES_EXPORTER', `one exporter at a time (otlp, console or none), got ${exporters.join(',')}`);
  const named = exporters[0];
  if (named !== undefined && named !== 'otlp' && named !== 'console') throw new TracingConfigError('OTEL_TRACES_EXPORTER', `supported: otlp, console, none; got ${named}`);
  if (named === undefined && endpoint === undefined) return { enabled: false };
  const exporter = named ?? 'otlp';
  if (exporter === 'otlp') {
    for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
      const protocol = value(env, name);
      if (protocol !== undefined && protocol !== 'http/protobuf') throw new TracingConfigError(name, `only http/protobuf is supported (Jaeger, Tempo and the Collector accept it on port 4318), got ${protocol}`);
      if (protocol !== undefined) break;
    }
  }
  const sampler = (value(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!(TRACES_SAMPLERS as readonly string[]).includes(sampler)) throw new TracingConfigError('OTEL_TRACES_SAMPLER', `supported: ${TRACES_SAMPLERS.join(', ')}; got ${sampler}`);
  const ratioText = value(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioText === undefined ? 1 : RatioSchema.safeParse(ratioText);
  if (typeof ratio !== 'number' && !ratio.success) throw new TracingConfigError('OTEL_TRACES_SAMPLER_ARG', `a ratio between 0 and 1, got ${ratioText ?? ''}`);
  const delayText = value(env, 'OTEL_BSP_SCHEDULE_DELAY');
  const delay = delayText === undefined ? 5000 : Number(delayText);
  if (!Number.isInteger(delay) || delay < 0) throw new TracingConfigError('OTEL_BSP_SCHEDULE_DELAY', `milliseconds, a non-negative integer, got ${delayText ?? ''}`);
  return {
    enabled: true,
    scheduleDelayMs: delay,
    exporter,
    serviceName: defaultServiceName,
    sampler: sampler as TracesSampler,
    ratio: typeof ratio === 'number' ? ratio : ratio.data,
  };
}
