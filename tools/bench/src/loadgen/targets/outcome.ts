/**
 * Checks that a decision is the one the workload expects, so a benchmark of a system that
 * answers wrongly (or only by failure policy) counts errors instead of fast "decisions".
 */
import type { HookDecision } from '@ahp/protocol';
import type { ExpectedOutcome } from '../../workload/hook-events.js';
import { codedError } from './target.js';

/** Throws a coded error unless `decision` is an oracle decision with the `expected` outcome. */
export function checkDecision(decision: Pick<HookDecision, 'allowed' | 'modifications' | 'decided_by' | 'error'>, expected: ExpectedOutcome): void {
  if (decision.decided_by === 'failure_policy') {
    throw codedError(`policy:${decision.error?.code ?? 'unknown'}`, 'decided by failure policy, not by the oracles');
  }
  const outcome: ExpectedOutcome = !decision.allowed ? 'deny' : decision.modifications.length > 0 ? 'rewrite' : 'allow';
  if (outcome !== expected) throw codedError('E_WRONG_DECISION', `expected ${expected}, got ${outcome}`);
}
