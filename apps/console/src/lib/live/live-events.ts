/**
 * The operators' live feed as the browser receives it: SSE events named by `kind`, whose `data`
 * is the event as JSON. Every event is parsed with the protocol's schema before anything uses it.
 */
import { OperatorLiveEventSchema, type OperatorLiveEvent, type OperatorLiveEventKind } from '@ahp/protocol';

/** The SSE event names the console listens to (the gateway's `event:` field): every kind, or the compiler says which is missing. */
export const LIVE_EVENT_KINDS = Object.keys({
  ready: true,
  heartbeat: true,
  agent: true,
  request: true,
  signals: true,
  timeline: true,
  config: true,
} satisfies Record<OperatorLiveEventKind, true>) as readonly OperatorLiveEventKind[];

/** The event carried by an SSE message named `eventName` with `data`, or `null` if it is not a valid one. */
export function parseLiveEvent(eventName: string, data: string): OperatorLiveEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = OperatorLiveEventSchema.safeParse(json);
  if (!parsed.success || parsed.data.kind !== eventName) return null;
  return parsed.data;
}
