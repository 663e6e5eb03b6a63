/**
 * The message of the echo baselines: the benchmark event, as it is (`raw`) or in the
 * `{event, data}` envelope Nest's message dispatch routes on (`nest`).
 */
import { hookEvent } from '../workload/hook-events.js';

export type EchoEnvelope = 'raw' | 'nest';

export function echoMessage(envelope: EchoEnvelope): string {
  const context = hookEvent(0).context;
  return JSON.stringify(envelope === 'nest' ? { event: 'echo', data: context } : context);
}
