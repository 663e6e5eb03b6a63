/** The hook drill-down's trace: its id, and its address in the operators' tracing UI when `AHP_TRACE_URL` names one. */
import { traceUrlOf } from '@ahp/protocol';

export interface TraceLink {
  readonly traceId: string;
  /** Absent without a template: the id is shown as text. */
  readonly href?: string;
}

/** The link of `traceId` under `template` (a checked `AHP_TRACE_URL`); undefined for a hook without a trace. */
export function traceLink(traceId: string | undefined, template: string | undefined): TraceLink | undefined {
  if (traceId === undefined) return undefined;
  return template === undefined ? { traceId } : { traceId, href: traceUrlOf(template, traceId) };
}
