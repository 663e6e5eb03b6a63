/**
 * The oracles a worker runs when nothing else is configured: enough for the control plane to
 * stop the worst tool calls before the `hooks.yaml` rule engine exists.
 */
import { createPermissionCheck } from './permission-check.js';
import type { PermissionCheckOptions } from './permission-check.js';
import type { Oracle } from './oracle.js';

/**
 * The patterns below are RE2 (linear-pattern.ts): no lookaround, so what a lookahead used to
 * check is matched (consumed) or spelled out. `SEG` is one command of a shell line (up to `;`,
 * `&`, `|` or a newline); `[^\S\n]` is a space or tab inside it.
 */
const SEG = '[^;&|\\n]';
const BLANK = '[^\\S\\n]';

/** Tool names agent runtimes give their shell tool (Claude Code `Bash`, Codex `shell`, Gemini `run_shell_command`, …). */
const SHELL_TOOLS = { regex: 'bash|sh|zsh|shell|exec|terminal|local_shell|run_shell_command|run_terminal_cmd|execute_command', flags: 'i' };

/**
 * `rm` with a recursive flag whose target is the filesystem root, the home directory, or
 * everything in either (`/`, `/*`, `~`, `~/`, `$HOME`, `"${HOME}"/*`), within one command. The
 * flag may come before the target (`rm -rf /`) or after it (`rm / -rf`): two alternatives, since
 * RE2 cannot look ahead for the flag.
 */
const RM_FLAG = '(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)';
const RM_TARGET = `["']?(?:/+\\*?|~/?\\*?|\\$\\{?HOME\\}?/?\\*?)["']?`;
const RM_START = '(?:^|[\\s;&|(`])rm\\s+';
export const RM_ROOT_OR_HOME =
  `${RM_START}(?:${SEG}*${BLANK})?${RM_FLAG}(?:\\s|${BLANK}${SEG}*\\s)${RM_TARGET}(?:$|[\\s;&|)\`])` +
  `|${RM_START}(?:${SEG}*${BLANK})?${RM_TARGET}(?:\\s|(?:${BLANK}|[)\`])${SEG}*\\s)${RM_FLAG}(?:\\s|$)`;

/**
 * The device name after `of=/dev/` unless it is exactly `null`, `zero`, `stdout`, `stderr` or
 * `tty` (the word ends there): each branch leaves the spelling of those names at some letter,
 * or ends before the name is complete, or continues it with another word character.
 */
const NOT_HARMLESS_DEVICE =
  '(?:[^nzst]|$' +
  '|n(?:[^u]|$|u(?:[^l]|$|l(?:[^l]|$|l\\w)))' +
  '|z(?:[^e]|$|e(?:[^r]|$|r(?:[^o]|$|o\\w)))' +
  '|s(?:[^t]|$|t(?:[^d]|$|d(?:[^eo]|$|o(?:[^u]|$|u(?:[^t]|$|t\\w))|e(?:[^r]|$|r(?:[^r]|$|r\\w)))))' +
  '|t(?:[^t]|$|t(?:[^y]|$|y\\w)))';

/** Creating a filesystem on a device, or `dd` writing to one (not to `/dev/null` and friends). */
export const WIPE_DEVICE = `(?:^|[\\s;&|(\`])mkfs(?:\\.[a-z0-9]+)?\\s|(?:^|[\\s;&|(\`])dd\\s${SEG}*\\bof=/dev/${NOT_HARMLESS_DEVICE}`;

/**
 * `git push` with `--force` or `-f` (but not `--force-with-lease`), keeping everything before the
 * flag in group 1 and the character after it (or nothing, at the end) in group 2, which the
 * replacement puts back.
 */
export const GIT_FORCE_PUSH = `(\\bgit\\s(?:${SEG}*?\\s)?push\\b(?:${SEG}*?\\s)?)(?:--force|-f)($|[\\s;&|)\`])`;

/**
 * The rules of the default `permission-check` oracle.
 *
 * - deny `rm -r` of `/` or the home directory (any tool: a file that would run it is as bad).
 * - deny `mkfs` and `dd of=/dev/…` on a block device.
 * - rewrite `git push --force` to `git push --force-with-lease` in shell tools. A warning would
 *   be the gentler answer, but `pre-tool-use` allows only block and control (docs/spec/hooks-and-oracles.md#triggers); the
 *   lease keeps the push working while refusing to overwrite commits the agent has not seen,
 *   which is the risk a warning would point at.
 */
export const DEFAULT_PERMISSION_RULES: PermissionCheckOptions = Object.freeze({
  deny: [
    {
      name: 'rm-root-or-home',
      type: 'security-violation',
      input: RM_ROOT_OR_HOME,
      reason: 'Recursive deletion of the filesystem root or the home directory destroys data irreversibly.',
      resolution_path: ['Delete only the specific paths that must go, inside the workspace (e.g. rm -rf ./build).'],
    },
    {
      name: 'wipe-block-device',
      type: 'security-violation',
      input: WIPE_DEVICE,
      reason: 'Formatting or overwriting a block device destroys everything on it.',
      resolvable: false,
      resolution_path: ['If the device really must be wiped, a person has to do it outside the agent.'],
    },
  ],
  rewrite: [
    {
      name: 'force-push-with-lease',
      tool: SHELL_TOOLS,
      input: GIT_FORCE_PUSH,
      replace: '$1--force-with-lease$2',
      reason: 'A plain force push overwrites remote commits nobody has seen; --force-with-lease refuses when the remote moved.',
    },
  ],
});

/**
 * The default oracle set, new instances on every call: one `permission-check` with
 * {@link DEFAULT_PERMISSION_RULES}. A worker runs these first, then its plugins.
 */
export function defaultOracles(): Oracle[] {
  return [createPermissionCheck(DEFAULT_PERMISSION_RULES)];
}
