/**
 * The hooks `ahp init codex` writes into a Codex hooks.json, merged into what is there
 * (hook-settings-merge.ts): a command hook `ahp hook codex` for every event AHP maps, without a
 * matcher (Codex then runs it for every tool and source). The AHP hooks of a previous run are
 * recognised by their command and replaced.
 */
import { CODEX_EVENTS, type CodexHooksFile, type CodexHooksFileGroup } from '@ahp/protocol';
import { PERMISSION_HOOK_TIMEOUT_S } from './claude-code-settings.js';
import { mergeAhpHooks } from './hook-settings-merge.js';

/** Codex's hook `timeout`, seconds: above `ahp hook`'s own wait (10 s), so AHP's explicit answer comes first. */
export const CODEX_HOOK_TIMEOUT_S = 15;

type Handler = CodexHooksFileGroup['hooks'][number];

/** Whether `hook` is one `ahp init codex` wrote, whatever gateway it names. */
export function isCodexAhpHook(hook: Handler): boolean {
  return hook.type === 'command' && typeof hook.command === 'string' && /(^|[\s/])ahp(\.js)? hook codex(\s|$)/.test(hook.command);
}

/** Quotes a path for the command line Codex runs with `sh -c` (single quotes, as POSIX shells read them). */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./~-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The token file of a project's hooks, as the shell Codex runs the command with finds it: Codex
 * starts hooks in the session's working folder, which may be below the repository root, and the
 * checked-in hooks.json must not name one developer's absolute path (Codex's docs resolve
 * repository scripts the same way).
 */
export const PROJECT_TOKEN_FILE = '"$(git rev-parse --show-toplevel)/.codex/ahp-token"';

/**
 * The AHP handler for `gateway`, reading the agent token from `tokenFile` (already a shell word:
 * quoted, or {@link PROJECT_TOKEN_FILE}); PermissionRequest's may be held for an operator, so it waits longer.
 */
export function codexAhpHook(gateway: string, tokenFile: string, event?: string): Handler {
  const timeout = event === 'PermissionRequest' ? PERMISSION_HOOK_TIMEOUT_S : CODEX_HOOK_TIMEOUT_S;
  return { type: 'command', command: `ahp hook codex --gateway ${shellQuote(gateway)} --token-file ${tokenFile}`, timeout };
}

/** `file` with the AHP hooks of every Codex event AHP maps replaced by those for `gateway` (`tokenFile` a shell word); the input is not changed. */
export function withCodexAhpHooks(file: CodexHooksFile, gateway: string, tokenFile: string): CodexHooksFile {
  const hooks = mergeAhpHooks<Handler, CodexHooksFileGroup>(file.hooks, CODEX_EVENTS, isCodexAhpHook, (event) => ({ hooks: [codexAhpHook(gateway, tokenFile, event)] }));
  return { ...file, hooks };
}
