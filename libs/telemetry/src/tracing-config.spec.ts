import { describe, expect, it } from 'vitest';
import { TracingConfigError, tracingConfigFromEnv } from './tracing-config.js';
import { activeTracing, startTracing } from './tracing.js';

const on = (env: Record<string, string>) => tracingConfigFromEnv(env, 'ahp-test');

describe('tracingConfigFromEnv', () => {
  it('is off with no OTEL_* variable (unlike the specification, whose default exporter is otlp)', () => {
    expect(on({})).toEqual({ enabled: false });
  });

  it('is switched on by an OTLP endpoint or by OTEL_TRACES_EXPORTER', () => {
    expect(on({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://tempo:4318' })).toMatchObject({ enabled: true, exporter: 'otlp', sampler: 'parentbased_always_on', ratio: 1, serviceName: 'ahp-test' });
    expect(on({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/v1/traces' })).toMatchObject({ enabled: true, exporter: 'otlp' });
    expect(on({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ enabled: true, exporter: 'otlp' });
    expect(on({ OTEL_TRACES_EXPORTER: 'console' })).toMatchObject({ enabled: true, exporter: 'console' });
  });

  it('stays off when told so, whatever else is set', () => {
    expect(on({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318' })).toEqual({ enabled: false });
    expect(on({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({ enabled: false });
  });

  it('reads the sampler, its ratio and the batch delay', () => {
    expect(on({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25', OTEL_BSP_SCHEDULE_DELAY: '100' })).toMatchObject({
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
      scheduleDelayMs: 100,
    });
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER'],
    [{ OTEL_TRACES_EXPORTER: 'otlp,console' }, 'OTEL_TRACES_EXPORTER'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_SCHEDULE_DELAY: 'soon' }, 'OTEL_BSP_SCHEDULE_DELAY'],
  ])('refuses %j, naming %s', (env, variable) => {
    expect(() => on(env)).toThrow(TracingConfigError);
    expect(() => on(env)).toThrow(new RegExp(`^${variable}:`));
  });
});

describe('startTracing', () => {
  it('with tracing off registers the no-op tracer and no BullMQ telemetry', async () => {
    const tracing = await startTracing({ enabled: false });
    expect(tracing.enabled).toBe(false);
    expect(tracing.bullmq).toBeUndefined();
    expect(activeTracing()).toBe(tracing);
    expect(tracing.tracer.startSpan('x').spanContext().traceId).toBe('00000000000000000000000000000000');
  });
});
