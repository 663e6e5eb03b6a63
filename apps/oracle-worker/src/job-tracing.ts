/**
 * The worker's spans of one hook job, when tracing is on (docs/deploy.md "Tracing"). The job
 * runs inside BullMQ's `process` span (bullmq-otel), which continues the trace the gateway's
 * enqueue started; these spans are its children: the queue wait, the evaluation with one span
 * per oracle, and the decision write, whose context is routed with the decision so that the
 * gateway's delivery span continues the same trace.
 *
 * Oracle spans are recorded after the fact from the run reports (start = end − duration): the
 * rules engine is not wrapped, so an evaluation costs the same with tracing on or off.
 *
 * The stage spans start and end on the very epoch values the drill-down stores: the queue wait
 * runs from the job's enqueue time to `pickedAt`, the evaluation from `pickedAt` to the
 * `decidedAt` given to {@link JobTrace.decide} (the decision's `decided_at`), so each stage's
 * latency in the drill-down is its span's duration.
 */
import { context, propagation, SpanStatusCode, trace, TraceFlags, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { OracleRunReport } from '@ahp/oracles';
import type { HookDecision, HookJobData } from '@ahp/protocol';
import { HOOK_ATTRIBUTES, HOOK_SPANS } from '@ahp/telemetry';

/** The spans of one job; see {@link createJobTracing}. */
export interface JobTrace {
  /** The trace's id when this job's spans are sampled (recorded with the drill-down); undefined otherwise. */
  readonly traceId: string | undefined;
  /** One oracle finished (called from `onOracleSettled`). */
  oracle(report: OracleRunReport): void;
  /**
   * Ends the evaluation at `decidedAt` (the decision's stored time, epoch ms) and runs `store`
   * inside the decision-write span, which starts there, giving it that span's `traceparent`.
   */
  decide<T extends { decision: HookDecision; first: boolean }>(decidedAt: number, store: (traceparent: string | undefined) => Promise<T>): Promise<T>;
  /** Ends what is still open (a job skipped past its deadline). */
  end(): void;
}

/** Starts the spans of each job the processor runs. */
export interface JobTracing {
  /** `parent` is the context the job runs in: BullMQ's `process` span (the active one). */
  begin(job: HookJobData, enqueuedAt: number, pickedAt: number, parent?: Context): JobTrace;
}

/** Job tracing over `tracer` (the SDK's, from `@ahp/telemetry`). */
export function createJobTracing(tracer: Tracer): JobTracing {
  return {
    begin(job, enqueuedAt, pickedAt, parent = context.active()) {
      const attributes = { [HOOK_ATTRIBUTES.hookId]: job.hook_id, [HOOK_ATTRIBUTES.trigger]: job.trigger, [HOOK_ATTRIBUTES.agentId]: job.agent.id, [HOOK_ATTRIBUTES.sessionId]: job.session_id };
      tracer.startSpan(HOOK_SPANS.queueWait, { startTime: Math.min(enqueuedAt, pickedAt), attributes }, parent).end(pickedAt);
      const evaluate = tracer.startSpan(HOOK_SPANS.evaluate, { startTime: pickedAt, attributes }, parent);
      const evaluating = trace.setSpan(parent, evaluate);
      const jobSpan = trace.getSpanContext(parent);
      let evaluated = false;
      const endEvaluate = (at?: number): void => {
        if (evaluated) return;
        evaluated = true;
        evaluate.end(at);
      };
      return {
        traceId: jobSpan !== undefined && (jobSpan.traceFlags & TraceFlags.SAMPLED) !== 0 ? jobSpan.traceId : undefined,
        oracle(report) {
          const end = Date.now();
          const span = tracer.startSpan(
            HOOK_SPANS.oracle,
            { startTime: end - report.durationMs, attributes: { [HOOK_ATTRIBUTES.oracle]: report.oracle, [HOOK_ATTRIBUTES.outcome]: report.outcome, [HOOK_ATTRIBUTES.signals]: report.signals } },
            evaluating,
          );
          if (report.outcome !== 'answered') span.setStatus({ code: SpanStatusCode.ERROR, message: report.message ?? report.outcome });
          span.end(end);
        },
        async decide(decidedAt, store) {
          endEvaluate(Math.max(decidedAt, pickedAt));
          const span = tracer.startSpan(HOOK_SPANS.decide, { startTime: decidedAt, attributes }, parent);
          const carrier: Record<string, string> = {};
          propagation.inject(trace.setSpan(parent, span), carrier);
          try {
            const stored = await store(carrier['traceparent']);
            span.setAttributes(outcomeAttributes(stored.decision, stored.first));
            return stored;
          } catch (error) {
            recordFailure(span, error);
            throw error;
          } finally {
            span.end();
          }
        },
        end: () => endEvaluate(),
      };
    },
  };
}

function outcomeAttributes(decision: HookDecision, first: boolean): Record<string, string | number | boolean> {
  return {
    [HOOK_ATTRIBUTES.first]: first,
    [HOOK_ATTRIBUTES.decidedBy]: decision.decided_by,
    [HOOK_ATTRIBUTES.intensity]: decision.intensity ?? 'none',
    ...(decision.config_version === undefined ? {} : { [HOOK_ATTRIBUTES.configVersion]: decision.config_version }),
  };
}

function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
