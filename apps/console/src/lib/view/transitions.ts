/**
 * Decision changes (`allow → block`) as the configuration pages show them: the replay report lists
 * them as `{ from, to, count }`, the shadow counters as a `"allow→block"` → count record; both read
 * the same here, most frequent first.
 */
import type { ReplayTransition } from '@ahp/protocol';

/** One change and how many hooks made it. */
export interface TransitionCount {
  label: string;
  count: number;
}

/** Either form as labelled counts, most hooks first (ties keep their order). */
export function transitionCounts(transitions: readonly ReplayTransition[] | Readonly<Record<string, number>>): TransitionCount[] {
  const entries = Array.isArray(transitions)
    ? (transitions as readonly ReplayTransition[]).map((t) => ({ label: `${t.from} → ${t.to}`, count: t.count }))
    : Object.entries(transitions).map(([name, count]) => ({ label: name.replace('→', ' → '), count }));
  return entries.sort((a, b) => b.count - a.count);
}

/** `allow → block 3, block → allow 1`; `—` when nothing changed. */
export function transitionsText(transitions: readonly ReplayTransition[] | Readonly<Record<string, number>>): string {
  const counts = transitionCounts(transitions);
  return counts.length === 0 ? '—' : counts.map((t) => `${t.label} ${t.count}`).join(', ');
}
