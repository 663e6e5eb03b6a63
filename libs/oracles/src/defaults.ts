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

/**
 * In normal form: a top-level system directory or everything directly in it (`/etc`, `/usr/*`,
 * `/var/**`). The Linux hierarchy whose loss leaves the machine unbootable or its programs, their
 * configuration or its services' data gone (`/etc`, `/usr`, `/var`, `/bin`, `/sbin`, `/lib*`,
 * `/boot`, `/opt`, `/srv`, `/snap`, `/nix`), the kernel's and udev's views of the running system
 * (`/sys`, `/proc`, `/dev`, `/run`), where other filesystems are mounted (`/mnt`, `/media`), and
 * macOS's own (`/System`, `/Library`, `/Applications`, `/private`, `/Volumes`). Not `/tmp`: it is
 * scratch space by design, and clearing it is an ordinary clean-up. Deeper paths (`/var/tmp/build`,
 * `/opt/app/cache`) are what an agent deletes in its own work and are not matched. Case as written
 * (macOS's case-insensitive `/system` is not read as `/System`). A first segment the shell would
 * expand (`/e*`, `/{etc,usr}`, `/$D`, and `/*\/*`) may be any of them, or `/` itself: it counts as one
 * (fail closed).
 */
const SYSTEM_DIRECTORY =
  '/(?:etc|usr|var|s?bin|lib(?:32|64|x32)?|boot|opt|srv|snap|nix|sys|proc|dev|run|mnt|media|System|Library|Applications|private|Volumes|[^ /]+[*?[{$][^ /]*|[*?[{$][^ /]+|\\*/\\*+)(?:/\\*+)?';

/** `rm` recursive on a top-level system directory or everything in it (flag before or after the target), or `find` deleting from there. */
export const DELETE_SYSTEM_DIRECTORY_COMMAND =
  `^rm${WORD} ${RECURSIVE}${WORD} ${SYSTEM_DIRECTORY}(?: |$)` +
  `|^rm${WORD} ${SYSTEM_DIRECTORY}${WORD} ${RECURSIVE}(?: |$)` +
  `|^find(?: -[HLP])*(?: [^ -][^ ]*)* ${SYSTEM_DIRECTORY}${WORD} (?:-delete|-exec(?:dir)? (?:[^ ]*/)?(?:rm|shred|unlink))(?: |$)`;

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

/** A home directory in normal form: `~`, `~user`, `$HOME`, `/root`, `/home/<user>`, `/Users/<user>`. */
const HOME_DIRECTORY = '(?:~[^ /]*|\\$\\{?HOME\\}?|/root|/(?:home|Users)/[^ /]+)';
/** A shell's start-up files, by their path under the home directory: `.bashrc`, `.bash_profile`, `.profile`, `.zshrc`, …, fish's `config.fish`. */
const STARTUP_NAME = '\\.(?:(?:ba|z|k|mk|c|tc)shrc|bash_(?:profile|log(?:in|out))|z(?:shenv|profile|log(?:in|out))|profile|config/fish/config\\.fish)';

/**
 * A shell's start-up files in a home directory (`~/.bashrc`, `~/.profile`, `~/.zshrc`, …, also as
 * `$HOME/…`, `/root/…`, `/home/<user>/…`), or any file under `/etc`: what every later shell, or
 * the system, runs or trusts. In normal form, so `cd ~ && echo x >> .bashrc` reads `>> ~/.bashrc`.
 * Without the word's end, which each use adds.
 */
const STARTUP_OR_SYSTEM_PATH = `(?:${HOME_DIRECTORY}/${STARTUP_NAME}|/etc/[^ ]+)`;

/** `sed`'s in-place flag, alone or in a cluster (`-i`, `-i.bak`, `-ni`, `--in-place=.bak`), not a cluster where `-e`/`-f` take the rest as their value. */
const SED_IN_PLACE = '(?:-[A-Za-dg-z]*i[^ ]*|--i[a-z-]*(?:=[^ ]*)?)';

/**
 * A command that writes a shell start-up file or a file under `/etc`: a redirection, `tee`,
 * `dd of=`, `truncate`, `curl -o`, `wget -O`, or `sed -i` / `perl -i` on it (each file operand is
 * written in place; for `sed` the flag before or after the file: GNU tools take options after
 * operands, perl does not).
 */
export const WRITE_STARTUP_OR_SYSTEM_FILE_COMMAND =
  `(?:${WRITE_REDIRECT}|^tee${WORD} |^dd${WORD} of=|^truncate${WORD} |^sed${WORD} ${SED_IN_PLACE}${WORD} |^perl${WORD} -[a-zA-Z]*i[^ ]*${WORD} ` +
  `|^curl${WORD} (?:-[a-zA-Z]*o ?|--output[= ])|^wget${WORD} (?:-[a-zA-Z]*O ?|--output-document[= ]))${STARTUP_OR_SYSTEM_PATH}(?: |$)` +
  `|^sed${WORD} ${STARTUP_OR_SYSTEM_PATH}${WORD} ${SED_IN_PLACE}(?: |$)`;

/**
 * What may follow the destination of `cp`, `mv`, `install` or `ln` to the end of the command:
 * options (`-f`; `-m 644`, `-o root`, `-g wheel`, `-S .bak` with their value, which is not an
 * operand), and redirections (`2> /dev/null`, `2>& 1`). Not `-t DIR`: then the destination is DIR.
 */
const COPY_TAIL = '(?: -[^ ]*| -[Smog] [^ ]+| [^ ]*[<>][^ ]* [^ ]+)*$';
/** Programs whose last operand is the destination (`rsync` and `scp` too, whose `-t` is not a target directory). */
const COPY = '^(?:cp|mv|install|ln|rsync|scp)';

/**
 * `cp`, `mv`, `install`, `ln`, `rsync` or `scp` whose destination is a shell start-up file,
 * `/etc` or anything under it: the last operand (`cp x ~/.bashrc`, `ln -sf x ~/.zshrc`, `install
 * -m 644 x /etc/cron.d/job`), or the directory of `-t DIR` / `--target-directory=DIR` (not for
 * rsync and scp); or a file named like a start-up file copied into a home directory (`cp
 * /tmp/x/.bashrc ~`). A start-up file as a source is read, not written (`cp ~/.bashrc backup/` is
 * not matched).
 */
export const COPY_ONTO_STARTUP_OR_SYSTEM_FILE_COMMAND =
  `${COPY}${WORD} (?:${HOME_DIRECTORY}/${STARTUP_NAME}|/etc(?:/[^ ]+)?)${COPY_TAIL}` +
  `|^(?:cp|mv|install|ln)${WORD} (?:-[a-zA-Z]*t ?|--target-directory[= ])/etc(?:/[^ ]+)?(?: |$)` +
  `|${COPY}${WORD} (?:[^ ]*/)?${STARTUP_NAME}${WORD} ${HOME_DIRECTORY}${COPY_TAIL}`;

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
 * - deny, in shell tools, `rm -r` (or `find -delete`) of a top-level system directory (`/etc`,
 *   `/usr`, `/var`, …: SYSTEM_DIRECTORY) or everything in it, on the commands in normal form, the
 *   line's `cd` and the session's directory followed (`cd /etc && rm -rf *`): a rule of its own,
 *   since `rm-root-or-home` is near the 1024-character limit of a hooks.yaml pattern.
 * - deny `mkfs`, `dd of=/dev/…` and redirections onto a block device, the same two ways as the first.
 * - deny, in shell tools, a redirection, `tee`, `dd of=`, `truncate`, `curl -o`, `wget -O`, `sed -i`
 *   or `perl -i` that writes a shell start-up file (`~/.bashrc`, `~/.profile`, `~/.zshrc`, …) or a
 *   file under `/etc`, on the commands in normal form: an allow entry for `git status` does not
 *   cover `git status > ~/.bashrc` (permission-check.ts), and this rule denies it even without an
 *   allow list; and (a rule of its own, for the same limit) `cp`, `mv`, `install`, `ln`, `rsync` or
 *   `scp` onto one.
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
      name: 'rm-system-directory',
      type: 'security-violation',
      tool: SHELL_TOOLS,
      shell: true,
      input: DELETE_SYSTEM_DIRECTORY_COMMAND,
      reason: 'Recursive deletion of a top-level system directory (/etc, /usr, /var, …) or everything in it leaves the system broken or its data gone.',
      resolution_path: ['Delete only the specific paths that must go (e.g. rm -rf /var/tmp/build); a system directory has to be cleaned by a person.'],
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
      name: 'copy-onto-startup-or-system-file',
      type: 'security-violation',
      tool: SHELL_TOOLS,
      shell: true,
      input: COPY_ONTO_STARTUP_OR_SYSTEM_FILE_COMMAND,
      reason: 'Copying, moving, installing or linking onto a shell start-up file or into /etc changes what every later shell, or the whole system, runs.',
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
