/**
 * The oracles a worker runs when nothing else is configured: enough for the control plane to
 * stop the worst tool calls before the `hooks.yaml` rule engine exists.
 */
import { createPermissionCheck } from './permission-check.js';
import type { PermissionCheckOptions } from './permission-check.js';
import type { Oracle } from './oracle.js';

/** Tool names agent runtimes give their shell tool (Claude Code `Bash`, Codex `shell`, Gemini `run_shell_command`, …). */
const SHELL_TOOLS = /^(?:bash|sh|zsh|shell|exec|terminal|local_shell|run_shell_command|run_terminal_cmd|execute_command)$/i;

/**
 * `rm` with a recursive flag whose target is the filesystem root, the home directory, or
 * everything in either (`/`, `/*`, `~`, `~/`, `$HOME`, `"${HOME}"/*`).
 */
const RM_ROOT_OR_HOME =
  /(?:^|[\s;&|(`])rm\s+(?=(?:[^;&|\n]*\s)?(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(?:\s|$))(?:[^;&|\n]*\s)?["']?(?:\/+\*?|~\/?\*?|\$\{?HOME\}?\/?\*?)["']?(?=$|[\s;&|)`])/;

/** Creating a filesystem on a device, or `dd` writing to one (not to `/dev/null` and friends). */
const WIPE_DEVICE =
  /(?:^|[\s;&|(`])mkfs(?:\.[a-z0-9]+)?\s|(?:^|[\s;&|(`])dd\s[^;&|\n]*\bof=\/dev\/(?!null\b|zero\b|stdout\b|stderr\b|tty\b)/;

/** `git push` with `--force` or `-f` (but not `--force-with-lease`), keeping everything before the flag in group 1. */
const GIT_FORCE_PUSH = /(\bgit\s(?:[^;&|\n]*?\s)?push\b(?:[^;&|\n]*?\s)?)(?:--force|-f)(?=$|[\s;&|)`])/;

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
      replace: '$1--force-with-lease',
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
