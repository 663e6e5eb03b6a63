/**
 * Fair queueing of hooks. One queue serves every agent in arrival order, so an agent that sends
 * hundreds of valid hooks at once (within its rate limit) would put everyone else's hooks behind
 * its own. BullMQ takes jobs without a priority (its wait list) before any prioritized job, so a
 * connection's hooks within its fair share go in without one, as before, and the hooks it has in
 * flight beyond that get a priority that grows with its backlog: the heavier an agent's backlog,
 * the later its excess hooks are taken. Well-behaved agents never reach the share, and pay
 * nothing for it (a prioritized add costs BullMQ more than a plain one).
 */
import { MAX_JOB_PRIORITY } from '@ahp/store';

/**
 * The queue priority of a hook whose connection has `inFlight` hooks in flight (this one
 * included), or undefined within the `fairShare` (0 turns fair queueing off).
 */
export function hookQueuePriority(inFlight: number, fairShare: number): number | undefined {
  if (fairShare <= 0 || inFlight <= fairShare) return undefined;
  return Math.min(MAX_JOB_PRIORITY, inFlight - fairShare);
}
