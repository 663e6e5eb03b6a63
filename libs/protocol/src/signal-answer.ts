/**
 * Which signals an agent must answer (docs/spec/spectrum-and-signals.md#answering-signals: block and control must be
 * answered, prompt and aid may be ignored), and the details of the refusal an agent gets when it did not.
 */
import type { Signal } from './signal.js';

/**
 * Whether the agent must answer `signal` with a `signal_response`: block and control signals,
 * except a block that waits for a person's decision on a tool approval (`resolution.kind
 * 'await_approval'`): that one is answered by the approval itself, and the SDK re-sends the call.
 */
export function mustAnswer(signal: Signal): boolean {
  if (signal.header.intensity === 'control') return true;
  if (signal.header.intensity !== 'block') return false;
  return !(signal.payload.level === 'blocking' && signal.payload.resolution?.kind === 'await_approval');
}
