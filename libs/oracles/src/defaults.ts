/**
 * The oracles a worker runs when nothing else is configured: enough for the control plane to
 * stop the worst tool calls before the `hooks.yaml` rule engine exists.
 */
import { createPermissionCheck } from './permission-check.js';
import type { PermissionCheckOptions } from './permission-check.js';
import type { Oracle } from './oracle.js';
import { SHELL_TOOL_PATTERN } from './shell/shell-line.js';

/**
 * The patterns below are RE2 (linear-pattern.ts): no lookaround, so what a lookahead used to
 * check is matched (consumed) or spelled out. `SEG` is one command of a shell line (up to `;`,
 * `&`, `|` or a newline); `[^\S\n]` is a space or tab inside it.
 */
const SEG = '[^;&|\\n]';
const BLANK = '[^\\S\\n]';

/** Tool names agent runtimes give their shell tool (Claude Code `Bash`, Codex `shell`, Gemini `run_shell_command`, …). */
const SHELL_TOOLS = { regex: SHELL_TOOL_PATTERN, flags: 'i' };

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

/** `git … push …` up to the word the force-push patterns look at (group 1, which replacements put back). */
const GIT_PUSH_PREFIX = `(\\bgit\\s(?:${SEG}*?\\s)?push\\b(?:${SEG}*?\\s)?)`;
/** What may end an option word: the line's end, a blank or a shell operator (kept in the last group). */
const WORD_END = '($|[\\s;&|)`])';

/**
 * `git push` with `--force` or `-f` (but not `--force-with-lease`), keeping everything before the
 * flag in group 1 and the character after it (or nothing, at the end) in group 2, which the
 * replacement puts back.
 */
export const GIT_FORCE_PUSH = `${GIT_PUSH_PREFIX}(?:--force|-f)${WORD_END}`;
/** A cluster of short flags with `f` after other letters (`-vf`, `-vfu`): split as `-v -fu` (groups: prefix, before, after, end). */
export const GIT_FORCE_FLAG_AFTER_OTHERS = `${GIT_PUSH_PREFIX}-([a-zA-Z]+)f([a-zA-Z]*)${WORD_END}`;
/** A cluster starting with `f` (`-fu`): split as `-f -u` (groups: prefix, after, end). */
export const GIT_FORCE_FLAG_FIRST = `${GIT_PUSH_PREFIX}-f([a-zA-Z]+)${WORD_END}`;
/** A `+` refspec (`origin +main`), which forces that ref: the `+` becomes a lease (groups: prefix, refspec). */
export const GIT_FORCE_REFSPEC = `${GIT_PUSH_PREFIX}\\+([^\\s;&|)\`'"]+)`;

/*
 * Patterns on shell commands in normal form (`shell: true`, permission-check.ts), joined to the
 * raw patterns above with `|` (each is harmless on the other's text): one simple
 * command, words separated by single spaces, quotes and backslashes gone, the program by its
 * basename, paths normalised without a trailing slash. What the raw patterns above cannot see
 * (`/bin/rm -rf /`, `\\rm`, `"rm"`, `rm -rf /.`, `bash -lc '…'`, an argv list) reads `rm -rf /` here.
 */
const WORD = '(?: [^ ]+)*';
/**
 * In normal form: the filesystem root, a home directory (`~`, `~root`, `$HOME`, and by its path:
 * `/root`, `/home/<user>`, `/Users/<user>`, which is how a line read at the session's directory
 * names it) or a directory above one (`~/..`, `/home`, `/Users`), a directory the shell reader
 * could not follow the line into (`$PWD`: shell-line.ts, UNKNOWN_DIRECTORY) or one above the
 * directory the line starts in (`..`), or everything in any of them. An unknown location counts
 * as the worst it could be (fail closed), while a named path in it (`$PWD/dist`) is no more
 * dangerous than `/dist`.
 */
const ROOT_OR_HOME = '(?:/\\*?|(?:/(?:root|(?:home|Users)(?:/[^ /]+)?)|(?:~[^ /]*|\\$\\{?(?:HOME|PWD)\\}?|\\.\\.)(?:/\\.\\.)*)(?:/\\*)?)';
const RECURSIVE = '(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)';

/** `rm` recursive on the root or home (flag before or after the target), or `find` deleting from there (any of its start points). */
export const DELETE_ROOT_OR_HOME_COMMAND =
  `^rm${WORD} ${RECURSIVE}${WORD} ${ROOT_OR_HOME}(?: |$)` +
  `|^rm${WORD} ${ROOT_OR_HOME}${WORD} ${RECURSIVE}(?: |$)` +
  `|^find(?: -[HLP])*(?: [^ -][^ ]*)* ${ROOT_OR_HOME}${WORD} (?:-delete|-exec(?:dir)? (?:[^ ]*/)?(?:rm|shred|unlink))(?: |$)`;

/** Devices a redirection must not write to (disks, partitions, device-mapper and md volumes). */
const BLOCK_DEVICE = '/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|loop|mapper/)';

/**
 * A redirection that writes, in normal form (shell-line.ts, ShellRedirect): the operator with its
 * file descriptor glued on (`>`, `2>>`, `&>`, `>|`, `<>`, `>&`), a space, then the target.
 */
const WRITE_REDIRECT = '(?:^| )(?:[0-9]+|&|\\{[A-Za-z_][A-Za-z0-9_]*\\})?(?:>>?|>\\||<>|>&) ';

/** `mkfs…`, `dd of=` a device, tools that wipe or write a device, or a redirection onto a block device. */
export const WIPE_DEVICE_COMMAND =
  `^mkfs(?:\\.[^ ]+)?(?: |$)` +
  `|^dd${WORD} of=/dev/${NOT_HARMLESS_DEVICE}` +
  `|^(?:wipefs|shred|blkdiscard|tee)${WORD} ${BLOCK_DEVICE}` +
  `|${WRITE_REDIRECT}${BLOCK_DEVICE}`;

/**
 * A shell's start-up files in a home directory (`~/.bashrc`, `~/.profile`, `~/.zshrc`, …, also as
 * `$HOME/…`, `/root/…`, `/home/<user>/…`), or any file under `/etc`: what every later shell, or
 * the system, runs or trusts. In normal form, so `cd ~ && echo x >> .bashrc` reads `>> ~/.bashrc`.
 */
const STARTUP_OR_SYSTEM_FILE =
  '(?:(?:~[^ /]*|\\$\\{?HOME\\}?|/root|/home/[^ /]+|/Users/[^ /]+)/\\.(?:bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zshenv|zprofile|zlogin|zlogout|kshrc|mkshrc|cshrc|tcshrc|config/fish/config\\.fish)|/etc/[^ ]+)(?: |$)';

/** A redirection (or `tee`) writing a shell start-up file or a file under `/etc`. */
export const WRITE_STARTUP_OR_SYSTEM_FILE_COMMAND = `${WRITE_REDIRECT}${STARTUP_OR_SYSTEM_FILE}|^tee${WORD} ${STARTUP_OR_SYSTEM_FILE}`;

/**
 * `git push` forcing without a lease: `--force`, a short-flag cluster with `f`, or a `+` refspec,
 * with only git's global options between `git` and `push` (so `git commit -m "push -f"` is not one).
 */
export const FORCE_PUSH_COMMAND = `^git(?: -[Cc] [^ ]+| --?[a-zA-Z][a-zA-Z-]*(?:=[^ ]*)?)* push${WORD} (?:--force|-[a-zA-Z]*f[a-zA-Z]*|\\+[^ ]*)(?: |$)`;

/**
 * The rules of the default `permission-check` oracle.
 *
 * - deny `rm -r` (or `find -delete`) of `/` or the home directory: in any tool on the raw text (a
 *   file that would run it is as bad), and in shell tools also on the commands in normal form
 *   (`shell: true`: every spelling of the program, quoting, `sh -c`, argv lists, the line's `cd`
 *   followed: `cd / && rm -rf *`, and the session's directory: `rm -rf *` with `context.cwd`
 *   `/home/u`). A home directory counts by its path too (`/home/u`, `/Users/u`, `/root`). After a
 *   `cd` the reader cannot follow (`cd "$DIR"`), deleting the directory or everything in it is
 *   denied as if it were `/`: the rule cannot know it is not
 *   (`cd $UNSET` goes home), and failing closed costs only `rm -rf *` there — a named path
 *   (`rm -rf "$DIR/dist"`, `cd "$DIR" && rm -rf dist`) and a relative `cd build && rm -rf *`
 *   stay allowed.
 * - deny `mkfs`, `dd of=/dev/…` and redirections onto a block device, the same two ways.
 * - deny, in shell tools, a redirection (or `tee`) that writes a shell start-up file (`~/.bashrc`,
 *   `~/.profile`, `~/.zshrc`, …) or a file under `/etc`, on the commands in normal form: an allow
 *   entry for `git status` does not cover `git status > ~/.bashrc` (permission-check.ts), and this
 *   rule denies it even without an allow list.
 * - rewrite `git push --force` (also `-f`, `-vfu`, `+main`) to `--force-with-lease` in shell
 *   tools; a force push the rewrites could not reach (`"git" push -f`, an argv list) is denied
 *   after rewriting (`force-push-without-lease`, `after_rewrite`). A warning would
 *   be the gentler answer, but `pre-tool-use` allows only block and control (docs/spec/hooks-and-oracles.md#triggers); the
 *   lease keeps the push working while refusing to overwrite commits the agent has not seen,
 *   which is the risk a warning would point at.
 */
export const DEFAULT_PERMISSION_RULES: PermissionCheckOptions = Object.freeze({
  deny: [
    {
      name: 'rm-root-or-home',
      type: 'security-violation',
      shell: true,
      input: `${RM_ROOT_OR_HOME}|${DELETE_ROOT_OR_HOME_COMMAND}`,
      reason: 'Recursive deletion of the filesystem root or the home directory destroys data irreversibly.',
      resolution_path: ['Delete only the specific paths that must go, inside the workspace (e.g. rm -rf ./build).'],
    },
    {
      name: 'wipe-block-device',
      type: 'security-violation',
      shell: true,
      input: `${WIPE_DEVICE}|${WIPE_DEVICE_COMMAND}`,
      reason: 'Formatting or overwriting a block device destroys everything on it.',
      resolvable: false,
      resolution_path: ['If the device really must be wiped, a person has to do it outside the agent.'],
    },
    {
      name: 'write-startup-or-system-file',
      type: 'security-violation',
      tool: SHELL_TOOLS,
      shell: true,
      input: WRITE_STARTUP_OR_SYSTEM_FILE_COMMAND,
      reason: 'Writing a shell start-up file or a file under /etc changes what every later shell, or the whole system, runs.',
      resolution_path: ['Write inside the workspace; a change to shell start-up files or /etc has to be made by a person.'],
    },
    {
      name: 'force-push-without-lease',
      type: 'security-violation',
      tool: SHELL_TOOLS,
      shell: true,
      after_rewrite: true,
      input: FORCE_PUSH_COMMAND,
      reason: 'A force push that could not be rewritten to --force-with-lease would overwrite remote commits nobody has seen.',
      resolution_path: ['Push with --force-with-lease (and no + refspec), written plainly: git push --force-with-lease origin <branch>.'],
    },
  ],
  rewrite: [
    {
      name: 'split-force-flag',
      tool: SHELL_TOOLS,
      input: GIT_FORCE_FLAG_AFTER_OTHERS,
      replace: '$1-$2 -f$3$4',
      reason: 'The force flag is taken out of its flag cluster so that it can be replaced.',
    },
    {
      name: 'split-force-flag-first',
      tool: SHELL_TOOLS,
      input: GIT_FORCE_FLAG_FIRST,
      replace: '$1-f -$2$3',
      reason: 'The force flag is taken out of its flag cluster so that it can be replaced.',
    },
    {
      name: 'force-push-with-lease',
      tool: SHELL_TOOLS,
      input: GIT_FORCE_PUSH,
      replace: '$1--force-with-lease$2',
      reason: 'A plain force push overwrites remote commits nobody has seen; --force-with-lease refuses when the remote moved.',
    },
    {
      name: 'force-refspec-with-lease',
      tool: SHELL_TOOLS,
      input: GIT_FORCE_REFSPEC,
      replace: '$1--force-with-lease $2',
      reason: 'A + refspec force-pushes that branch; --force-with-lease refuses when the remote moved.',
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
