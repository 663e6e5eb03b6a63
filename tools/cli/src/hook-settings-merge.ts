/**
 * The merge every `ahp init <agent>` does on the agent's hook configuration: per event, a list
 * of matcher groups each holding hooks (Claude Code's settings, Codex's hooks.json, Copilot's
 * hook files share that shape). The AHP hooks of an earlier run are recognised and replaced, so
 * a re-run changes nothing; every other hook, group and event stays as it was.
 */

/** A matcher group: its hooks, and whatever else the agent keeps there. */
export interface HookGroup<Hook> {
  hooks: Hook[];
  [key: string]: unknown;
}

/** The groups without AHP hooks; a group that held only AHP hooks is dropped. */
export function withoutAhpHooks<Hook, Group extends HookGroup<Hook>>(groups: readonly Group[], isAhp: (hook: Hook) => boolean): Group[] {
  const kept: Group[] = [];
  for (const group of groups) {
    const others = group.hooks.filter((hook) => !isAhp(hook));
    if (others.length === group.hooks.length) kept.push(group);
    else if (others.length > 0) kept.push({ ...group, hooks: others });
  }
  return kept;
}

/**
 * `hooks` with the AHP hooks of each of `events` replaced by `groupFor(event)` (appended after
 * the agent's own groups); events AHP does not map are copied untouched. The input is not changed.
 */
export function mergeAhpHooks<Hook, Group extends HookGroup<Hook>>(
  hooks: Readonly<Record<string, Group[]>> | undefined,
  events: readonly string[],
  isAhp: (hook: Hook) => boolean,
  groupFor: (event: string) => Group,
): Record<string, Group[]> {
  const merged: Record<string, Group[]> = {};
  for (const [event, groups] of Object.entries(hooks ?? {})) merged[event] = events.includes(event) ? withoutAhpHooks(groups, isAhp) : groups;
  for (const event of events) merged[event] = [...(merged[event] ?? []), groupFor(event)];
  return merged;
}
