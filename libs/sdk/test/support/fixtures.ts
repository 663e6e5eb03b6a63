/** Valid signals and decisions for the tests, built with the protocol's own schemas and aggregator. */
import { SignalSchema, aggregateSignals, failurePolicyDecision, levelForIntensity } from '@ahp/protocol/wire';
import type { HookDecision, HookTrigger, Intensity, Signal, SignalPayload } from '@ahp/protocol/wire';

const NOW = '2026-02-09T10:00:00Z';

const PAYLOADS: Record<Intensity, SignalPayload> = {
  block: {
    level: 'blocking',
    decision: 'deny',
    reason: 'rm -rf outside the workspace',
    resolvable: true,
    resolution_path: ['limit the path to ./build', 'ask an operator'],
  },
  control: {
    level: 'controlling',
    decision: 'allow_with_modification',
    modifications: [{ target: 'timeout_s', original: 600, updated: 60, reason: 'cap long commands' }],
    reversible: true,
  },
  prompt: {
    level: 'prompting',
    decision: 'warn',
    severity: 'medium',
    message: 'tests were not run',
    suggestions: ['run npm test'],
    continue_allowed: true,
  },
  aid: {
    level: 'aiding',
    decision: 'suggest',
    context: 'the tool call succeeded',
    suggestions: [{ type: 'follow_up', description: 'commit the change' }],
  },
};

/** A valid signal of `intensity` with a fresh id. */
export function signalOf(intensity: Intensity, source = `${intensity}-oracle`): Signal {
  const payload = PAYLOADS[intensity];
  if (payload.level !== levelForIntensity(intensity)) throw new Error('fixture mismatch');
  return SignalSchema.parse({
    header: {
      id: globalThis.crypto.randomUUID(),
      type: 'permission-check',
      timestamp: NOW,
      source,
      intensity,
    },
    context: { fixture: true },
    payload,
  });
}

/** The decision the oracles would produce for these signals. */
export function decisionFor(hookId: string, trigger: HookTrigger, signals: Signal[], configVersion?: number): HookDecision {
  return aggregateSignals({ hookId, trigger, signals, now: NOW, ...(configVersion === undefined ? {} : { configVersion }) });
}

/** A fail-closed decision: no oracle answered in time. */
export function failClosedFor(hookId: string, trigger: HookTrigger): HookDecision {
  return failurePolicyDecision({
    hookId,
    trigger,
    policy: 'fail_closed',
    code: 'E_TIMEOUT',
    message: 'oracles did not answer within 5000 ms',
    now: NOW,
  });
}
