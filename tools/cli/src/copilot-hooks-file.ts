/**
 * The hooks `ahp init copilot` writes into a Copilot hooks file (`.github/hooks/ahp.json`,
 * `~/.copilot/hooks/ahp.json`), merged into what is there: a command `ahp hook copilot <event>`
 * for every Copilot event AHP evaluates. Copilot lists handlers per event directly (no matcher
 * groups); the AHP handlers of a previous run are recognised by their command and replaced.
 */
import { COPILOT_EVENTS, type CopilotHooksFile, type CopilotHooksFileHandler } from '@ahp/protocol';
import { PERMISSION_HOOK_TIMEOUT_S } from './claude-code-settings.js';
import { shellQuote } from './codex-hooks-file.js';

/** Copilot's `timeoutSec`: above `ahp hook`'s own wait (10 s), so AHP's explicit answer comes first. */
export const COPILOT_HOOK_TIMEOUT_S = 15;

/** Whether `handler` is one `ahp init copilot` wrote, whatever gateway it names. */
export function isCopilotAhpHook(handler: CopilotHooksFileHandler): boolean {
  return handler.type === 'command' && typeof handler.bash === 'string' && /(^|[\s/])ahp(\.js)? hook copilot(\s|$)/.test(handler.bash);
}

/** The AHP handler of `event` for `gateway`; `tokenFile` (a path) when the token is in a file rather than AHP_TOKEN. */
export function copilotAhpHook(event: string, gateway: string, tokenFile?: string): CopilotHooksFileHandler {
  const token = tokenFile === undefined ? '' : ` --token-file ${shellQuote(tokenFile)}`;
  // permissionRequest may be held while an operator decides: it waits longer.
  const timeoutSec = event === 'permissionRequest' ? PERMISSION_HOOK_TIMEOUT_S : COPILOT_HOOK_TIMEOUT_S;
  return { type: 'command', bash: `ahp hook copilot ${event} --gateway ${shellQuote(gateway)}${token}`, timeoutSec };
}

/** `file` with the AHP handlers of every Copilot event AHP evaluates replaced by those for `gateway`; the input is not changed. */
export function withCopilotAhpHooks(file: CopilotHooksFile, gateway: string, tokenFile?: string): CopilotHooksFile {
  const hooks: Record<string, CopilotHooksFileHandler[]> = {};
  const events: readonly string[] = COPILOT_EVENTS;
  for (const [event, handlers] of Object.entries(file.hooks ?? {})) hooks[event] = events.includes(event) ? handlers.filter((handler) => !isCopilotAhpHook(handler)) : handlers;
  for (const event of COPILOT_EVENTS) hooks[event] = [...(hooks[event] ?? []), copilotAhpHook(event, gateway, tokenFile)];
  return { ...file, version: 1, hooks };
}
