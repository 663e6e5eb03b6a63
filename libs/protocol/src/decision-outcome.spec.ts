import { describe, expect, it } from 'vitest';
import { decisionRulesOf, replayDecisionOf, replayOutcomeOf, ReplayTransitionSchema } from './config-replay.js';
import { shadowOutcomeOf, ShadowOutcomeSchema } from './config-shadow.js';
import { DECISION_OUTCOMES, MAX_RULE_NAME_LENGTH, decisionOutcomeOf, isStrongerOutcome, signalRuleName, transitionName } from './decision-outcome.js';
import { aggregateSignals, failurePolicyDecision, type HookDecision } from './hook-decision.js';
import { SignalSchema, type Signal } from './signal.js';

const HOOK_ID = '11111111-1111-4111-8111-111111111111';
const NOW = '2026-02-09T10:00:01Z';

/** A minimal valid payload per intensity. */
const PAYLOADS = {
  block: { level: 'blocking', decision: 'deny', reason: 'not allowed', resolvable: false, resolution_path: [] },
  control: { level: 'controlling', decision: 'allow_with_modification', modifications: [{ target: 'interactive', original: false, updated: true, reason: 'ask first' }], reversible: true },
  prompt: { level: 'prompting', decision: 'warn', severity: 'medium', message: 'careful', suggestions: [], continue_allowed: true },
  aid: { level: 'aiding', decision: 'suggest', context: 'a hint', suggestions: [] },
} as const;

function signal(intensity: keyof typeof PAYLOADS, n: number, context: Record<string, unknown> = {}): Signal {
  return SignalSchema.parse({
    header: { id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type: 'pre-tool-use', timestamp: NOW, source: 'guard', intensity, correlation_id: HOOK_ID },
    context: { rule: `r${n}`, ...context },
    payload: PAYLOADS[intensity],
  });
}

const decide = (signals: Signal[]): HookDecision => aggregateSignals({ hookId: HOOK_ID, trigger: 'pre-tool-use', signals, now: NOW });

/** One decision of each kind, and what it should be classified as. */
const CASES: [string, HookDecision, string][] = [
  ['no signal', decide([]), 'allow'],
  ['an aid', decide([signal('aid', 1)]), 'aid'],
  ['a prompt beside an aid', decide([signal('aid', 1), signal('prompt', 2)]), 'prompt'],
  ['a control', decide([signal('control', 1)]), 'control'],
  ['a plain block', decide([signal('block', 1), signal('aid', 2)]), 'block'],
  ['a block waiting for approval', decide([signal('block', 1, { approval: { deadline_ms: 60_000, on_expiry: 'reject' } })]), 'approval'],
  ['an approval beside a plain block', decide([signal('block', 1), signal('block', 2, { approval: { deadline_ms: 60_000, on_expiry: 'approve' } })]), 'approval'],
  ['a failure policy that fails closed', failurePolicyDecision({ hookId: HOOK_ID, trigger: 'pre-tool-use', policy: 'fail_closed', code: 'E_TIMEOUT', message: 'timeout', now: NOW }), 'block'],
  ['a failure policy that fails open', failurePolicyDecision({ hookId: HOOK_ID, trigger: 'pre-tool-use', policy: 'fail_open', code: 'E_TIMEOUT', message: 'timeout', now: NOW }), 'allow'],
];

describe('one classification for replay and shadow mode', () => {
  it.each(CASES)('%s: the shadow, the replay of its record and the shared function agree', (_name, decision, expected) => {
    expect(decisionOutcomeOf(decision)).toBe(expected);
    expect(shadowOutcomeOf(decision)).toBe(expected);
    // A replay compares recorded decisions: the record keeps level and approval apart, the outcome joins them again.
    expect(replayOutcomeOf(replayDecisionOf(decision))).toBe(expected);
  });

  it('ranks approval above block, so wrapping a block in an approval is a change of its own', () => {
    expect(DECISION_OUTCOMES).toEqual(['allow', 'aid', 'prompt', 'control', 'block', 'approval']);
    expect(isStrongerOutcome('approval', 'block')).toBe(true);
    expect(isStrongerOutcome('allow', 'aid')).toBe(false);
    expect(transitionName('block', 'approval')).toBe('block→approval');
  });

  it('both APIs accept the same outcomes on the wire', () => {
    for (const outcome of DECISION_OUTCOMES) {
      expect(ShadowOutcomeSchema.parse(outcome)).toBe(outcome);
      expect(ReplayTransitionSchema.parse({ from: 'allow', to: outcome, count: 1 }).to).toBe(outcome);
    }
    expect(ShadowOutcomeSchema.safeParse('deny').success).toBe(false);
  });
});

describe('signalRuleName (the one rule name of replay reports and shadow counters)', () => {
  it('is <oracle>/<rule id>, or the oracle alone when the signal names no rule or an empty one', () => {
    expect(signalRuleName(signal('block', 1))).toBe('guard/r1');
    expect(signalRuleName(signal('block', 2, { rule: '' }))).toBe('guard');
    expect(signalRuleName(signal('block', 3, { rule: 42 }))).toBe('guard');
  });

  it('caps a hostile rule id at the shared length, and replay names rules the same way', () => {
    const long = signal('prompt', 4, { rule: 'x'.repeat(1000) });
    expect(signalRuleName(long)).toHaveLength(MAX_RULE_NAME_LENGTH);
    expect(decisionRulesOf(decide([long, signal('block', 5, { rule: '' })]))).toEqual(['guard', signalRuleName(long)]);
  });
});
