/** The signal log: lines, statistics and the JSONL export, all with the same filters. */
import {
  OperatorSignalResponseSchema,
  SignalLogListResponseSchema,
  SignalLogStatsSchema,
  type OperatorSignalBodyInput,
  type OperatorSignalResponse,
  type SignalLogListResponse,
  type SignalLogStats,
} from '@ahp/protocol';
import type { SignalFilters } from '@/lib/view/signal-filters';
import { callJson, operatorUrl } from './client';

/** The query parameters of the operator API for `filters`. */
function query(filters: SignalFilters): Record<string, string | undefined> {
  return {
    since: filters.since,
    until: filters.until,
    agent: filters.agent,
    hook: filters.hook,
    intensity: filters.intensity,
    source: filters.source,
  };
}

/** Matching lines, oldest first (at most `limit`). */
export function fetchSignalLines(filters: SignalFilters, limit: number, signal?: AbortSignal): Promise<SignalLogListResponse> {
  return callJson(operatorUrl('signals', { ...query(filters), limit }), SignalLogListResponseSchema, signal ? { signal } : {});
}

/** Statistics over every matching line. */
export function fetchSignalStats(filters: SignalFilters, signal?: AbortSignal): Promise<SignalLogStats> {
  return callJson(operatorUrl('signals/stats', query(filters)), SignalLogStatsSchema, signal ? { signal } : {});
}

/** Where the browser downloads the JSONL export of `filters` (through the console's proxy). */
export function signalExportHref(filters: SignalFilters, limit: number): string {
  return operatorUrl('signals/export', { ...query(filters), limit });
}

/**
 * `POST /agents/:agentId/signals`: pushes a prompt or aid to the agent. Resolves with the signal and
 * whether the agent was connected (`pushed`) or gets it when it connects (`queued`); rejects with an
 * `ApiError` (`E_INVALID_FRAME`, `E_NOT_FOUND` for an agent outside the token's teams, …).
 */
export function sendAgentSignal(agentId: string, body: OperatorSignalBodyInput): Promise<OperatorSignalResponse> {
  return callJson(operatorUrl(`agents/${encodeURIComponent(agentId)}/signals`), OperatorSignalResponseSchema, { method: 'POST', body });
}
