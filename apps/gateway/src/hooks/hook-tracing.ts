/**
 * The gateway's spans of a hook, when tracing is on (docs/deploy.md "Tracing"): the trace's root
 * `ahp.hook` from the frame's arrival to the decision's delivery, `ahp.gateway.receive` (session
 * check, opening the correlation) up to the enqueue, BullMQ's `add` span inside the root (bullmq-otel
 * puts the context into the job), and `ahp.gateway.deliver`, whose parent is the worker's
 * decision-write span when the decision came with its `traceparent` (the decision route).
 *
 * The receive and delivery spans start and end on the epoch values the drill-down stores
 * (received → enqueued, decided → delivered), so the drill-down's `gateway_ms` and `delivery_ms`
 * are their durations.
 *
 * With tracing off every method returns at once: no span, no map entry, no context switch.
 */
import { Injectable } from '@nestjs/common';
import { ROOT_CONTEXT, SpanKind, context, propagation, trace, type Span } from '@opentelemetry/api';
import { HOOK_ATTRIBUTES, HOOK_SPANS, activeTracing } from '@ahp/telemetry';

/** Root spans kept open for their delivery; past this, the oldest is ended undelivered (its agent went away). */
export const MAX_OPEN_HOOK_SPANS = 10_000;

/** Who sent a hook, for the span attributes. */
export interface HookTraceInput {
  readonly hookId: string;
  readonly trigger: string;
  readonly agentId: string;
  readonly sessionId: string;
  /** When the gateway received the hook (epoch ms). */
  readonly receivedAt: number;
}

@Injectable()
export class HookTracing {
  private readonly tracing = activeTracing();
  /** Root span per hook id, in insertion order (oldest first). */
  private readonly open = new Map<string, Span>();

  /**
   * Runs `enqueue` inside the hook's root span, after a receive span covering what came before it,
   * up to `enqueuedAt`: the time the job is queued with (its BullMQ timestamp, the drill-down's `enqueued_at`).
   */
  enqueue<T>(hook: HookTraceInput, enqueuedAt: number, enqueue: () => Promise<T>): Promise<T> {
    if (!this.tracing.enabled) return enqueue();
    const { tracer } = this.tracing;
    const attributes = { [HOOK_ATTRIBUTES.hookId]: hook.hookId, [HOOK_ATTRIBUTES.trigger]: hook.trigger, [HOOK_ATTRIBUTES.agentId]: hook.agentId, [HOOK_ATTRIBUTES.sessionId]: hook.sessionId };
    const root = tracer.startSpan(HOOK_SPANS.hook, { kind: SpanKind.SERVER, startTime: hook.receivedAt, attributes }, ROOT_CONTEXT);
    const inRoot = trace.setSpan(ROOT_CONTEXT, root);
    tracer.startSpan(HOOK_SPANS.receive, { startTime: hook.receivedAt, attributes }, inRoot).end(Math.max(enqueuedAt, hook.receivedAt));
    this.keep(hook.hookId, root);
    return context.with(inRoot, enqueue);
  }

  /**
   * The decision of `hookId` was handed to its waiters, the first at `deliveredAt` (the
   * drill-down's `delivered_at`): a delivery span from `decidedAt` (the drill-down's `decided_at`,
   * routed with the trace context; when unknown, the span has no length), and the root ends.
   */
  delivered(hookId: string, via: string, traceparent: string | undefined, decidedAt?: number, deliveredAt: number = Date.now()): void {
    if (!this.tracing.enabled) return;
    const root = this.open.get(hookId);
    if (root === undefined) return;
    this.open.delete(hookId);
    const parent = traceparent === undefined ? trace.setSpan(ROOT_CONTEXT, root) : propagation.extract(ROOT_CONTEXT, { traceparent });
    // Two machines' clocks: a decision "after" its delivery is clamped, as the drill-down does.
    const startTime = decidedAt === undefined ? deliveredAt : Math.min(decidedAt, deliveredAt);
    this.tracing.tracer.startSpan(HOOK_SPANS.deliver, { startTime, attributes: { [HOOK_ATTRIBUTES.hookId]: hookId, [HOOK_ATTRIBUTES.via]: via } }, parent).end(deliveredAt);
    root.end(deliveredAt);
  }

  private keep(hookId: string, root: Span): void {
    // A re-sent hook starts a new root; the one it replaces ends here.
    this.open.get(hookId)?.end();
    this.open.delete(hookId);
    this.open.set(hookId, root);
    if (this.open.size > MAX_OPEN_HOOK_SPANS) {
      const [oldestId, oldest] = this.open.entries().next().value as [string, Span];
      oldest.setAttribute('ahp.hook.undelivered', true);
      oldest.end();
      this.open.delete(oldestId);
    }
  }
}
