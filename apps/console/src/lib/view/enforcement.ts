/** An agent's enforcement state in words, one line per part, for the agent page. */
import type { EnforcementPart, EnforcementState } from '@ahp/protocol';

export const PART_LABELS: Readonly<Record<EnforcementPart, string>> = {
  breakers: 'Circuit breakers',
  hold: 'Hold (unanswered signals)',
  escalation: 'Escalation counters',
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What each part present in `state` holds; `held` is false for a part with nothing in it. */
export function describeEnforcement(state: EnforcementState): { part: EnforcementPart; text: string; held: boolean }[] {
  const lines: { part: EnforcementPart; text: string; held: boolean }[] = [];
  if (state.breakers !== undefined) {
    const { identical_calls: calls, iterations } = state.breakers;
    const most = calls.distinct === 0 ? '' : `, the most repeated made ${plural(calls.highest, 'time')}`;
    lines.push({ part: 'breakers', text: `${plural(calls.distinct, 'distinct tool call')}${most}; ${plural(iterations, 'loop iteration')}`, held: calls.distinct > 0 || iterations > 0 });
  }
  if (state.hold !== undefined) {
    const { unanswered, signal_ids: ids } = state.hold;
    const listed = ids.length === 0 ? '' : `: ${ids.join(', ')}${ids.length < unanswered ? ', …' : ''}`;
    lines.push({ part: 'hold', text: `${plural(unanswered, 'unanswered block/control signal')}${listed}`, held: unanswered > 0 });
  }
  if (state.escalation !== undefined) {
    const { rules, counters } = state.escalation;
    const listed = counters.map((counter) => `${counter.rule} × ${counter.violations}`).join(', ');
    lines.push({ part: 'escalation', text: `${plural(rules, 'rule counter')}${listed === '' ? '' : `: ${listed}${counters.length < rules ? ', …' : ''}`}`, held: rules > 0 });
  }
  return lines;
}
