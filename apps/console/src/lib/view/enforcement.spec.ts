import { describe, expect, it } from 'vitest';
import { describeEnforcement } from './enforcement';

describe('describeEnforcement', () => {
  it('says what each part holds, and which parts hold nothing', () => {
    expect(
      describeEnforcement({
        breakers: { identical_calls: { distinct: 2, highest: 51 }, iterations: 1 },
        hold: { unanswered: 3, signal_ids: ['s1', 's2'] },
        escalation: { rules: 0, counters: [] },
      }),
    ).toEqual([
      { part: 'breakers', text: '2 distinct tool calls, the most repeated made 51 times; 1 loop iteration', held: true },
      { part: 'hold', text: '3 unanswered block/control signals: s1, s2, …', held: true },
      { part: 'escalation', text: '0 rule counters', held: false },
    ]);
  });

  it('lists only the parts present (a reset reports the parts it reset)', () => {
    expect(describeEnforcement({ escalation: { rules: 1, counters: [{ rule: 'no-force-push', violations: 3 }] } })).toEqual([
      { part: 'escalation', text: '1 rule counter: no-force-push × 3', held: true },
    ]);
    expect(describeEnforcement({ breakers: { identical_calls: { distinct: 0, highest: 0 }, iterations: 0 } })[0]?.held).toBe(false);
  });
});
