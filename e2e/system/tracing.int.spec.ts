// Starts: a private Redis, a gateway, an oracle worker and the built console as processes with
// tracing switched on by the standard OTEL_* variables, exporting to an OTLP/HTTP receiver in this
// test; an SDK agent; Debian's Chromium on the console's hook page. Then a second gateway and
// worker whose gateway samples nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { connect, type AhpClient } from '@ahp/sdk';
import { HookDrillDownSchema } from '@ahp/protocol';
import { HOOK_SPANS as HookTraceSpanNames } from '@ahp/telemetry';
import { CHROMIUM_ARGS } from '../console/console-harness.js';
import { eventually, startSystem, type System } from './harness.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

const TRACE_URL = 'http://jaeger.example:16686/trace/{trace_id}';
const shell = (command: string) => ({ tool: { name: 'bash', input: { command, token: 'sk-live-abcdef0123456789' } } });

describe('OpenTelemetry tracing and the hook drill-down across processes', () => {
  let receiver: OtlpReceiver;
  let operators: OperatorTokens;
  let system: System;
  let agent: AhpClient;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    operators = await writeOperatorTokens([{ id: 'op-viv', name: 'Viv', role: 'viewer' }]);
    const otel = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
    system = await startSystem({
      name: 'tracing',
      agents: [{ id: 'tracy', name: 'Tracy' }],
      gatewayEnv: { ...otel, AHP_OPERATOR_TOKENS_FILE: operators.file },
      workerEnv: otel,
      console: { port: 0, hostname: '127.0.0.1', env: { ...otel, AHP_TRACE_URL: TRACE_URL } },
    });
    agent = await connect({ url: system.stack.gatewayUrls(), token: system.token('tracy') });
  }, 120_000);

  afterAll(async () => {
    agent?.close();
    await system?.stop();
    await operators?.remove();
    await receiver?.close();
  });

  it('one hook is one trace spanning the gateway and the worker: receive, enqueue, queue wait, evaluate per oracle, decision write, delivery', async () => {
    const result = await agent.hook('pre-tool-use', shell('rm -rf /'));
    expect(result.allowed).toBe(false);
    const hookId = result.hookId;

    // The root span names the hook; everything in its trace is this hook's.
    const spansOfHook = await eventually(() => {
      const root = receiver.spans.find((span) => span.name === HookTraceSpanNames.hook && span.attributes['ahp.hook.id'] === hookId);
      if (root === undefined) return undefined;
      const trace = receiver.spans.filter((span) => span.traceId === root.traceId);
      return trace.some((span) => span.name === HookTraceSpanNames.deliver) && trace.some((span) => span.name === HookTraceSpanNames.decide) ? trace : undefined;
    }, 'the hook trace, delivery span included');
    expect(receiver.rejected).toBe(0);

    const one = (name: string): ReceivedSpan => {
      const found = spansOfHook.filter((span) => span.name === name);
      expect(found, name).toHaveLength(1);
      return found[0] as ReceivedSpan;
    };
    const root = one(HookTraceSpanNames.hook);
    const receive = one(HookTraceSpanNames.receive);
    const add = spansOfHook.find((span) => span.name.startsWith('add ') && span.service === 'ahp-gateway');
    const processSpan = spansOfHook.find((span) => span.name.startsWith('process ') && span.service === 'ahp-oracle-worker');
    const queueWait = one(HookTraceSpanNames.queueWait);
    const evaluate = one(HookTraceSpanNames.evaluate);
    const oracles = spansOfHook.filter((span) => span.name === HookTraceSpanNames.oracle);
    const decide = one(HookTraceSpanNames.decide);
    const deliver = one(HookTraceSpanNames.deliver);

    // Both processes wrote into this one trace.
    expect(new Set(spansOfHook.map((span) => span.service))).toEqual(new Set(['ahp-gateway', 'ahp-oracle-worker']));
    expect([root, receive, deliver].map((span) => span.service)).toEqual(['ahp-gateway', 'ahp-gateway', 'ahp-gateway']);
    expect([queueWait, evaluate, decide, ...oracles].every((span) => span.service === 'ahp-oracle-worker')).toBe(true);

    // The chain of parents: gateway root → enqueue (BullMQ add) → the job (process) → worker spans;
    // the decision route carries the decision write's context back to the gateway's delivery.
    expect(root.parentSpanId).toBe('');
    expect(receive.parentSpanId).toBe(root.spanId);
    expect(add?.parentSpanId).toBe(root.spanId);
    expect(processSpan?.parentSpanId).toBe(add?.spanId);
    for (const span of [queueWait, evaluate, decide]) expect(span.parentSpanId, span.name).toBe(processSpan?.spanId);
    expect(oracles.length).toBeGreaterThan(0);
    for (const span of oracles) expect(span.parentSpanId).toBe(evaluate.spanId);
    expect(oracles.map((span) => span.attributes['ahp.oracle'])).toContain('permission-check');
    expect(deliver.parentSpanId).toBe(decide.spanId);
    expect(decide.attributes).toMatchObject({ 'ahp.hook.id': hookId, 'ahp.decision.first': true, 'ahp.decision.intensity': 'block' });
    expect(root.attributes).toMatchObject({ 'ahp.hook.trigger': 'pre-tool-use', 'ahp.agent.id': 'tracy' });
  });

  it("the drill-down of the hook: redacted context, oracle verdicts, rule, stage latencies and delivery, then the agent's answer", async () => {
    const result = await agent.hook('pre-tool-use', shell('rm -rf /'));
    expect(result.allowed).toBe(false);
    if (result.allowed) return;
    const signal = result.block.signal!;
    const base = operatorApi(system.stack.gateways[0]!);
    const token = operators.token('op-viv');

    // Delivery times are written in batches (every 0.5 s): wait for this hook's.
    const drill = await eventually(async () => {
      const { status, json } = await operatorCall(base, token, 'GET', `/hooks/${result.hookId}`);
      if (status !== 200) return undefined;
      const parsed = HookDrillDownSchema.parse(json);
      return parsed.delivered_at === undefined ? undefined : parsed;
    }, 'the drill-down with its delivery time');
    expect(drill.detail).toMatchObject({ hook_id: result.hookId, agent_id: 'tracy', trigger: 'pre-tool-use', allowed: false, intensity: 'block', decided_by: 'oracles' });
    expect(drill.detail.context).toEqual({ tool: { name: 'bash', input: { command: 'rm -rf /', token: '[redacted]' } } });
    expect(drill.detail.oracles.find((o) => o.oracle === 'permission-check')).toMatchObject({ outcome: 'answered', signals: 1 });
    expect(drill.detail.signals).toEqual([expect.objectContaining({ signal_id: signal.header.id, source: 'permission-check', intensity: 'block' })]);
    expect(drill.delivered_via).toBe('ws');
    expect(Object.keys(drill.stages).sort()).toEqual(['delivery_ms', 'gateway_ms', 'queue_ms', 'worker_ms']);
    expect(drill.answers).toEqual({});

    // The drill-down names the hook's trace, and each stage is one of its spans: same instants.
    const traced = await eventually(() => {
      const spans = receiver.spans.filter((span) => span.traceId === drill.trace_id);
      return spans.some((span) => span.name === HookTraceSpanNames.hook) ? spans : undefined;
    }, "the drill-down's trace");
    const root = traced.find((span) => span.name === HookTraceSpanNames.hook);
    expect(root?.attributes['ahp.hook.id']).toBe(result.hookId);
    const durationMs = (name: string): number => {
      const span = traced.find((candidate) => candidate.name === name);
      if (span === undefined) throw new Error(`no ${name} span in the trace`);
      return Number(span.endNs - span.startNs) / 1e6;
    };
    const stageSpans = { gateway_ms: HookTraceSpanNames.receive, queue_ms: HookTraceSpanNames.queueWait, worker_ms: HookTraceSpanNames.evaluate, delivery_ms: HookTraceSpanNames.deliver } as const;
    for (const [stage, name] of Object.entries(stageSpans)) {
      expect(Math.abs(durationMs(name) - (drill.stages[stage as keyof typeof stageSpans] ?? -10)), `${stage} vs ${name}`).toBeLessThanOrEqual(1);
    }
    // And the spans sit on the drill-down's own timestamps.
    const startMs = (name: string): number => Number((traced.find((span) => span.name === name)?.startNs ?? 0n) / 1_000_000n);
    expect(startMs(HookTraceSpanNames.receive)).toBe(drill.received_at);
    expect(startMs(HookTraceSpanNames.evaluate)).toBe(drill.detail.picked_at);
    expect(startMs(HookTraceSpanNames.deliver)).toBe(drill.decided_at);

    await agent.respond(signal, 'abort', { note: 'not doing that' });
    const answered = await operatorCall(base, token, 'GET', `/hooks/${result.hookId}`);
    expect(HookDrillDownSchema.parse(answered.json).answers[signal.header.id]).toMatchObject({ action: 'abort' });

    // A hook without signals has a partial drill-down (from its hook record: no signals; its
    // delivery time joins with the gateway's next flush); a malformed id is refused.
    const quiet = await agent.hook('pre-tool-use', shell('ls'));
    const partial = await operatorCall(base, token, 'GET', `/hooks/${quiet.hookId}`);
    expect(partial.status).toBe(200);
    const quietDrill = HookDrillDownSchema.parse(partial.json);
    expect(quietDrill.partial).toMatchObject({ reason: 'no_signals', unavailable: expect.arrayContaining(['signals', 'answers']) as unknown });
    expect(quietDrill.detail.signals).toEqual([]);
    expect(quietDrill.detail.oracles.find((o) => o.oracle === 'permission-check')).toMatchObject({ outcome: 'answered', signals: 0 });
    // Its summary kept the trace id too.
    const quietRoot = await eventually(() => receiver.spans.find((span) => span.name === HookTraceSpanNames.hook && span.attributes['ahp.hook.id'] === quiet.hookId), 'the quiet hook root span');
    expect(quietDrill.trace_id).toBe(quietRoot.traceId);
    expect((await operatorCall(base, token, 'GET', '/hooks/not-a-uuid')).status).toBe(400);
  });

  it("a console call to the gateway is one trace: the console's span, continued by the gateway's operator request span", async () => {
    const consoleUrl = system.stack.console?.url ?? '';
    const signIn = await fetch(`${consoleUrl}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-ahp-csrf': '1', origin: consoleUrl },
      body: JSON.stringify({ token: operators.token('op-viv') }),
    });
    expect(signIn.status).toBe(200);
    const [call, request] = await eventually(() => {
      const calls = receiver.spans.filter((span) => span.service === 'ahp-console' && span.name === 'ahp.console.gateway_call' && span.attributes['url.path'] === '/v1/operator/me');
      for (const candidate of calls) {
        const served = receiver.spans.find((span) => span.service === 'ahp-gateway' && span.name === 'ahp.operator.request' && span.parentSpanId === candidate.spanId);
        if (served !== undefined) return [candidate, served] as const;
      }
      return undefined;
    }, 'the console span and the gateway span continuing it');
    expect(request.traceId).toBe(call.traceId);
    expect(call.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200 });
    expect(request.attributes).toMatchObject({ 'http.request.method': 'GET', 'url.path': '/v1/operator/me', 'http.response.status_code': 200 });
    expect(receiver.rejected).toBe(0);
  });

  it("the hook page links the hook's trace into the tracing UI AHP_TRACE_URL names, in a new tab", async () => {
    const result = await agent.hook('pre-tool-use', shell('rm -rf /'));
    const base = operatorApi(system.stack.gateways[0]!);
    const drill = HookDrillDownSchema.parse((await operatorCall(base, operators.token('op-viv'), 'GET', `/hooks/${result.hookId}`)).json);
    const traceId = drill.trace_id ?? '';
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    const browser = await chromium.launch({ executablePath: process.env['AHP_CHROMIUM'] ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const page = await (await browser.newContext({ baseURL: system.stack.console?.url ?? '' })).newPage();
      await page.goto('/sign-in');
      await page.getByLabel('Operator token').fill(operators.token('op-viv'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Fleet' }).waitFor();
      await page.goto(`/hooks/${result.hookId}`);
      const link = page.getByTestId('trace').getByRole('link', { name: traceId });
      await link.waitFor();
      expect(await link.getAttribute('href')).toBe(TRACE_URL.replace('{trace_id}', traceId));
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await link.getAttribute('rel')).toContain('noopener');
    } finally {
      await browser.close();
    }
  });
});

describe('a hook the gateway does not sample', () => {
  let receiver: OtlpReceiver;
  let operators: OperatorTokens;
  let system: System;
  let agent: AhpClient;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    operators = await writeOperatorTokens([{ id: 'op-viv', name: 'Viv', role: 'viewer' }]);
    const otel = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
    system = await startSystem({
      name: 'tracing-sampled-out',
      agents: [{ id: 'quinn', name: 'Quinn' }],
      // The gateway roots every trace and samples none; the worker follows its parent (the default sampler).
      gatewayEnv: { ...otel, OTEL_TRACES_SAMPLER: 'always_off', AHP_OPERATOR_TOKENS_FILE: operators.file },
      workerEnv: otel,
    });
    agent = await connect({ url: system.stack.gatewayUrls(), token: system.token('quinn') });
  });

  afterAll(async () => {
    agent?.close();
    await system?.stop();
    await operators?.remove();
    await receiver?.close();
  });

  it('has no trace id in its drill-down, full or partial', async () => {
    const base = operatorApi(system.stack.gateways[0]!);
    const token = operators.token('op-viv');
    const loud = await agent.hook('pre-tool-use', shell('rm -rf /'));
    const quiet = await agent.hook('pre-tool-use', shell('ls'));
    for (const hookId of [loud.hookId, quiet.hookId]) {
      const { status, json } = await operatorCall(base, token, 'GET', `/hooks/${hookId}`);
      expect(status).toBe(200);
      const drill = HookDrillDownSchema.parse(json);
      expect(drill.detail.hook_id).toBe(hookId);
      expect(drill.trace_id).toBeUndefined();
    }
    expect(receiver.spans.filter((span) => span.name.startsWith('ahp.'))).toEqual([]);
  });
});
