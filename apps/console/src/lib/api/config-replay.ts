/** Replays of a candidate hooks configuration over recorded hooks (docs/hooks.md, "Replay a candidate configuration"). */
import { ConfigReplayStatusSchema, type ConfigReplayRequest, type ConfigReplayStatus } from '@ahp/protocol';
import { callJson, operatorUrl } from './client';

/** Submits a replay; a candidate that does not validate rejects with `E_INVALID_FRAME` and `details.issues`. */
export function submitReplay(request: ConfigReplayRequest): Promise<ConfigReplayStatus> {
  return callJson(operatorUrl('config/replay'), ConfigReplayStatusSchema, { method: 'POST', body: request });
}

/** Where a replay stands, with its report once completed. */
export function fetchReplay(id: string, signal?: AbortSignal): Promise<ConfigReplayStatus> {
  return callJson(operatorUrl(`config/replay/${id}`), ConfigReplayStatusSchema, signal ? { signal } : {});
}

/** Asks a replay to stop. */
export function cancelReplay(id: string): Promise<ConfigReplayStatus> {
  return callJson(operatorUrl(`config/replay/${id}`), ConfigReplayStatusSchema, { method: 'DELETE' });
}
