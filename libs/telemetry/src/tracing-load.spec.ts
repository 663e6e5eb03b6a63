/**
 * "Off costs nothing": a process that does not trace never loads the SDK, the exporter or
 * bullmq-otel. Checked in a child process (a clean module cache) with NODE_DEBUG=module, which
 * logs every CommonJS load — these packages resolve to their CommonJS builds. Runs the built
 * library (dist), as the apps do.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SCRIPT = `import(${JSON.stringify(DIST)}).then(async (t) => { const r = await t.startTracing(t.tracingConfigFromEnv(process.env, 'x')); console.log('enabled=' + r.enabled); await r.shutdown(); })`;

async function modulesLoaded(env: Record<string, string>): Promise<{ enabled: string; sdk: boolean; exporter: boolean; bullmqOtel: boolean }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const { stdout, stderr } = await run(process.execPath, ['-e', SCRIPT], { env: { ...clean, ...env, NODE_DEBUG: 'module' }, maxBuffer: 64 * 1024 * 1024 });
  return {
    enabled: /enabled=(\w+)/.exec(stdout)?.[1] ?? '',
    sdk: stderr.includes('@opentelemetry/sdk-trace/'),
    exporter: stderr.includes('@opentelemetry/exporter-trace-otlp-proto/'),
    bullmqOtel: stderr.includes('bullmq-otel/'),
  };
}

describe('loading', () => {
  it('with no OTEL_* variable, loads neither the SDK, the exporter nor bullmq-otel', async () => {
    expect(await modulesLoaded({})).toEqual({ enabled: 'false', sdk: false, exporter: false, bullmqOtel: false });
  });

  it('switched on, loads them (the check above can see them)', async () => {
    expect(await modulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).toEqual({ enabled: 'true', sdk: true, exporter: true, bullmqOtel: true });
  });
});
