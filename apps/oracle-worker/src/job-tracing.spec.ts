/**
 * The worker's stage spans sit on the drill-down's own instants (queue wait: enqueued → picked up;
 * evaluation: picked up → decided_at; the decision write from decided_at), and the trace id is
 * handed to the drill-down only when the job's trace is sampled. A recording stand-in tracer.
 */
import { ROOT_CONTEXT, TraceFlags, trace, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import type { HookDecision, HookJobData } from '@ahp/protocol';
import { HOOK_SPANS } from '@ahp/telemetry';
import { describe, expect, it } from 'vitest';
import { createJobTracing } from './job-tracing.js';

interface Recorded {
  name: string;
  start: unknown;
  end: unknown;
}

function recordingTracer(): Tracer & { spans: Recorded[] } {
  const spans: Recorded[] = [];
  const startSpan = (name: string, options: SpanOptions = {}): Span => {
    const recorded: Recorded = { name, start: options.startTime, end: 'open' };
    spans.push(recorded);
    const span = trace.wrapSpanContext({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED });
    return Object.assign(Object.create(span) as Span, {
      end: (time?: unknown) => {
        recorded.end = time;
      },
      setAttributes: () => span,
      setStatus: () => span,
    });
  };
  return { spans, startSpan, startActiveSpan: (() => undefined) as unknown as Tracer['startActiveSpan'] };
}

const JOB: HookJobData = {
  hook_id: '0b9e4d5e-6a7c-4f1e-9a2b-3c4d5e6f7a8b',
  trigger: 'pre-tool-use',
  agent: { id: 'agent-1', name: 'Agent One' },
  session_id: 'session-1',
  context: {},
  enqueued_at: 1_000,
  deadline_at: 9_000,
};
const DECISION = { hook_id: JOB.hook_id, decided_by: 'oracles', intensity: null } as unknown as HookDecision;
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const jobContext = (traceFlags: number) => trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: 'b7ad6b7169203331', traceFlags, isRemote: true });

describe('job tracing', () => {
  it('starts and ends the stage spans on the times the drill-down stores', async () => {
    const tracer = recordingTracer();
    const job = createJobTracing(tracer).begin(JOB, 1_004, 1_010, jobContext(TraceFlags.SAMPLED));
    // (No propagator is registered here: the traceparent it hands `store` is the system test's to check.)
    await job.decide(1_030, () => Promise.resolve({ decision: DECISION, first: true }));
    const span = (name: string) => tracer.spans.find((recorded) => recorded.name === name);
    expect(span(HOOK_SPANS.queueWait)).toEqual({ name: HOOK_SPANS.queueWait, start: 1_004, end: 1_010 });
    expect(span(HOOK_SPANS.evaluate)).toEqual({ name: HOOK_SPANS.evaluate, start: 1_010, end: 1_030 });
    expect(span(HOOK_SPANS.decide)?.start).toBe(1_030);
    expect(span(HOOK_SPANS.decide)?.end).not.toBe('open');
  });

  it('hands over the trace id only when the job is sampled', () => {
    expect(createJobTracing(recordingTracer()).begin(JOB, 1_004, 1_010, jobContext(TraceFlags.SAMPLED)).traceId).toBe(TRACE_ID);
    expect(createJobTracing(recordingTracer()).begin(JOB, 1_004, 1_010, jobContext(TraceFlags.NONE)).traceId).toBeUndefined();
    expect(createJobTracing(recordingTracer()).begin(JOB, 1_004, 1_010, ROOT_CONTEXT).traceId).toBeUndefined();
  });
});
