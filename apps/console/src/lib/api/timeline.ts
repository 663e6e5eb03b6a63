/** One agent's reported events (control signals, plan progress, verification results). */
import { TimelineResponseSchema, MAX_LIST_LIMIT, type TimelineEntry } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** The newest events of `agentId`, newest first. */
export async function fetchTimeline(agentId: string, signal?: AbortSignal): Promise<TimelineEntry[]> {
  const { events } = await callJson(operatorUrl(`agents/${encodeURIComponent(agentId)}/timeline`, { limit: MAX_LIST_LIMIT }), TimelineResponseSchema, signal ? { signal } : {});
  return events;
}
