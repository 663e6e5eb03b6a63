/** Small labelled badges: agent status, signal intensity, request status. Colour is never the only cue: each shows its word. */
import type { FleetAgentStatus, Intensity, RequestStatus } from '@ahp/protocol';

export function StatusBadge({ status }: { status: FleetAgentStatus }) {
  return <span className={`badge badge-status-${status}`}>{status}</span>;
}

export function IntensityBadge({ intensity }: { intensity: Intensity }) {
  return <span className={`badge badge-intensity-${intensity}`}>{intensity}</span>;
}

export function RequestStatusBadge({ status }: { status: RequestStatus }) {
  return <span className={`badge badge-request-${status}`}>{status}</span>;
}
