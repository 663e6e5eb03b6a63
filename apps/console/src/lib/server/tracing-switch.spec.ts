import { tracingConfigFromEnv } from '@ahp/telemetry';
import { describe, expect, it } from 'vitest';
import { tracingMayBeOn } from './tracing-switch';

const ENVS: Record<string, string>[] = [
  {},
  { OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on', OTEL_BSP_SCHEDULE_DELAY: '100' },
  { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
  { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' },
  { OTEL_TRACES_EXPORTER: 'console' },
  { OTEL_TRACES_EXPORTER: 'otlp' },
  { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' },
  { OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' },
  { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' },
];

describe('tracingMayBeOn', () => {
  it('is false with no exporter or endpoint named: instrumentation.ts then imports nothing', () => {
    expect(tracingMayBeOn({})).toBe(false);
    expect(tracingMayBeOn({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBe(false);
  });

  it('never hides a configuration the project’s tracing would switch on', () => {
    for (const env of ENVS) {
      if (tracingConfigFromEnv(env, 'ahp-console').enabled) expect(tracingMayBeOn(env), JSON.stringify(env)).toBe(true);
    }
  });
});
