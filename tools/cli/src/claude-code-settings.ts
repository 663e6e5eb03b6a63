/**
 * The hooks section `ahp init claude-code` writes into a Claude Code settings file, merged into
 * what is there: the AHP hooks of a previous run are recognised and replaced (so a re-run changes
 * nothing, and switching between the HTTP and the command form leaves one of them), every other
 * hook, matcher group and setting stays as it was.
 */
import {
  CLAUDE_CODE_EVENTS,
  type ClaudeCodeEvent,
  type ClaudeCodeSettings,
  type ClaudeCodeSettingsHook,
  type ClaudeCodeSettingsMatcher,
} from '@ahp/protocol';
import { mergeAhpHooks } from './hook-settings-merge.js';

/** The gateway route Claude Code's HTTP hooks post to. */
export const CLAUDE_CODE_ROUTE = '/v1/hooks/claude-code';

/** The tool events: their matcher groups carry `matcher: "*"` (every tool). */
const TOOL_EVENTS: ReadonlySet<ClaudeCodeEvent> = new Set(['PreToolUse', 'PostToolUse', 'PermissionRequest']);

/**
 * Claude Code's hook `timeout`, seconds: above the gateway's default AHP_CLAUDE_CODE_DEADLINE_MS
 * (8 s) and `ahp hook`'s own wait (10 s), so AHP's explicit answer always comes first.
 */
export const HOOK_TIMEOUT_S = 15;

/**
 * The hook `timeout` of an agent's permission prompt, seconds: the gateway may hold it while an
 * operator decides (AHP_PERMISSION_WAIT_MS, 45 s by default; `ahp hook` waits that plus 10 s),
 * and its fallback must answer before the agent gives up on the hook.
 */
export const PERMISSION_HOOK_TIMEOUT_S = 60;

/** How the hooks reach the gateway. */
export type HookForm = 'http' | 'command';

/** Whether `hook` is one `ahp init` wrote (either form), whatever gateway it names. */
export function isAhpHook(hook: ClaudeCodeSettingsHook): boolean {
  if (hook.type === 'http') return typeof hook.url === 'string' && hook.url.replace(/\/+$/, '').endsWith(CLAUDE_CODE_ROUTE);
  if (hook.type === 'command') return typeof hook.command === 'string' && /(^|[\s/])ahp(\.js)? hook claude-code(\s|$)/.test(hook.command);
  return false;
}

/** The AHP hook for `gateway` in the chosen form, for `event` (the permission dialog's waits longer). */
export function ahpHook(form: HookForm, gateway: string, event?: string): ClaudeCodeSettingsHook {
  const timeout = event === 'PermissionRequest' ? PERMISSION_HOOK_TIMEOUT_S : HOOK_TIMEOUT_S;
  if (form === 'command') return { type: 'command', command: `ahp hook claude-code --gateway ${gateway}`, timeout };
  return {
    type: 'http',
    url: `${gateway}${CLAUDE_CODE_ROUTE}`,
    headers: { Authorization: 'Bearer $AHP_TOKEN' },
    allowedEnvVars: ['AHP_TOKEN'],
    timeout,
  };
}

/** `settings` with the AHP hooks of every event AHP maps replaced by those for `gateway`; the input is not changed. */
export function withAhpHooks(settings: ClaudeCodeSettings, form: HookForm, gateway: string): ClaudeCodeSettings {
  const hooks = mergeAhpHooks<ClaudeCodeSettingsHook, ClaudeCodeSettingsMatcher>(settings.hooks, CLAUDE_CODE_EVENTS, isAhpHook, (event) => ({
    ...(TOOL_EVENTS.has(event as ClaudeCodeEvent) ? { matcher: '*' } : {}),
    hooks: [ahpHook(form, gateway, event)],
  }));
  return { ...settings, hooks };
}

/** The gateway an AHP hook of `settings` names (the first found), for `ahp doctor`. */
export function gatewayOf(settings: ClaudeCodeSettings): string | undefined {
  for (const groups of Object.values(settings.hooks ?? {})) {
    for (const group of groups) {
      for (const hook of group.hooks) {
        if (!isAhpHook(hook)) continue;
        if (hook.type === 'http' && typeof hook.url === 'string') return hook.url.replace(/\/+$/, '').slice(0, -CLAUDE_CODE_ROUTE.length);
        const match = typeof hook.command === 'string' ? /--gateway[ =](\S+)/.exec(hook.command) : null;
        if (match?.[1] !== undefined) return match[1];
      }
    }
  }
  return undefined;
}
