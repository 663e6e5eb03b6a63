/**
 * The names and attributes of a hook's spans, shared by the gateway and the workers so that a
 * trace reads the same whichever process wrote each part (docs/deploy.md "Tracing").
 */

/** Span names of one hook's trace, in the order they happen. */
export const HOOK_SPANS = {
  /** Gateway, root of the trace: from the hook frame's arrival to the decision's delivery. */
  hook: 'ahp.hook',
  /** Gateway: session check and opening the hook's correlation in Redis, up to the enqueue. */
  receive: 'ahp.gateway.receive',
  /** Worker: from the job's enqueue to a worker picking it up. */
  queueWait: 'ahp.queue.wait',
  /** Worker: the hook's oracles, one child span per oracle. */
  evaluate: 'ahp.worker.evaluate',
  /** Worker: one oracle's run (`ahp.oracle` attribute names it). */
  oracle: 'ahp.oracle',
  /** Worker: storing the decision, which routes it to the waiting gateway. */
  decide: 'ahp.decision.write',
  /** Gateway: the decision sent to the agent. */
  deliver: 'ahp.gateway.deliver',
} as const;

/** Attribute keys; correlation ids match the log fields (`correlationId` is the hook id). */
export const HOOK_ATTRIBUTES = {
  hookId: 'ahp.hook.id',
  trigger: 'ahp.hook.trigger',
  agentId: 'ahp.agent.id',
  sessionId: 'ahp.session.id',
  oracle: 'ahp.oracle',
  outcome: 'ahp.oracle.outcome',
  signals: 'ahp.oracle.signals',
  intensity: 'ahp.decision.intensity',
  decidedBy: 'ahp.decision.decided_by',
  configVersion: 'ahp.config.version',
  first: 'ahp.decision.first',
  via: 'ahp.delivery.via',
} as const;
