/**
 * `permission-check`: the built-in `pre-tool-use` oracle. It matches the tool a call is about to
 * use, and the call's input, against deny, rewrite and warn rules.
 */
import {
  SeveritySchema,
  SignalPayloadSchema,
  TRIGGERS,
  SignalTypeSchema,
  LIMITS,
  hookToolCall,
  pointerTarget,
  isIntensityAllowed,
} from '@ahp/protocol';
import type { HookTrigger, Intensity, JsonObject, JsonValue, Modification, Severity, SignalPayload } from '@ahp/protocol';
import { OracleSetupError } from './errors.js';
import { PatternError, compilePatternSpec } from './pattern/linear-pattern.js';
import type { LinearPattern, PatternSpec } from './pattern/linear-pattern.js';
import { ORACLE_NAME_PATTERN } from './oracle.js';
import type { Oracle, OracleInput, OracleVerdict } from './oracle.js';
import { normalizePosixPath } from './shell/posix-path.js';
import { UNKNOWN_DIRECTORY, isShellTool, shellCommandList, shellCommands, startDirectory, withoutRedirect } from './shell/shell-line.js';
import type { ShellCommand, ShellRedirect } from './shell/shell-line.js';

/**
 * What a rule matches. A rule applies when both given patterns match; at least one is required.
 *
 * - `tool` is tested against `context.tool.name`. A string (or `{ regex, flags }`) is a pattern
 *   matched against the whole name (`Bash` matches only `Bash`, `mcp__.*` every MCP tool); a
 *   `RegExp` keeps its own anchors and flags.
 * - `input` is searched in `context.tool.input` (an object): value by value (every string inside
 *   it, and for an absolute path that is not in normal form, its normal form too: `/a/../etc/x`
 *   is also tested as `/etc/x`) and as its JSON text. Allow entries are stricter (see
 *   {@link PermissionCheckOptions.allow}).
 * - `shell` (deny rules): in a call of a shell tool (shell-line.ts, SHELL_TOOL_PATTERN), `input`
 *   is also tested against each shell command in the input in normal form (quotes and
 *   backslashes removed, `/bin/rm` → `rm`, paths normalised, redirections at the end
 *   (`git status > ~/.bashrc`), relative paths read at the directory the line `cd`s to
 *   (`cd / && rm -rf *` → `rm -rf /*`), `sh -c` scripts and substitutions read as commands of
 *   their own, argv lists read as one command), so that a pattern like `^rm ` sees every
 *   spelling of the same command. The command is read from the shell's own directory, and also
 *   from the tool's working-directory field or, without one, the session's directory
 *   (`context.cwd`: `rm -rf *` at `cwd: "/"` → `rm -rf /*`; see sessionStart).
 *
 * A context whose tool call cannot be read the protocol's way (hookToolCall: no `tool`, a bare
 * string, an input that is not an object, an unknown field) is blocked, rule `unreadable-tool-call`:
 * the agent writes the context, and a call the rules cannot see is not a call they allowed.
 * - `field` restricts `input` to one string inside an object input, by dotted path
 *   (`command`, `args.0`) or, for keys with dots or slashes, by JSON Pointer (`/cmd.x`, `/args/0`).
 *
 * Every pattern, a `RegExp` included (translated by its source and flags), is compiled on RE2
 * (linear-pattern.ts): matching is linear in the input, since the oracle's time budget cannot
 * interrupt a synchronous match. Lookaround and backreferences are refused.
 */
export interface PermissionMatch {
  readonly tool?: PatternSpec;
  readonly input?: PatternSpec;
  readonly field?: string;
  /** In shell tools, also match `input` against each shell command of the input in normal form (see above); deny rules only. @defaultValue false */
  readonly shell?: boolean;
  /**
   * The rule's name, recorded as `rule` in the signal's provenance.
   * @defaultValue its position, e.g. `deny[0]`
   */
  readonly name?: string;
  /**
   * The signal type of the verdict, kebab-case.
   * @defaultValue `permission-check` (the typical signal of `pre-tool-use`)
   */
  readonly type?: string;
}

/** Denies the call: a `block` signal. */
export interface PermissionDenyRule extends PermissionMatch {
  readonly reason: string;
  /** Steps that would let a retry pass (e.g. "delete only ./build"). @defaultValue `[]` */
  readonly resolution_path?: readonly string[];
  /** Whether the agent can remove the cause itself. @defaultValue true when a resolution path is given */
  readonly resolvable?: boolean;
  /**
   * Check the input as the rewrite rules leave it instead of as sent: for a rule that blocks what
   * the rewrites could not make safe (the default force-push rule blocks the force pushes its
   * rewrites could not turn into `--force-with-lease`). @defaultValue false
   */
  readonly after_rewrite?: boolean;
}

/**
 * Rewrites part of the input and allows the call: a `control` signal whose modifications the
 * agent applies before running the tool. Only strings inside an object input can be rewritten;
 * the modification's `target` is their JSON Pointer in the tool input (`/command`, `/args/2`,
 * `/cmd.x`), and its `original` the string found there: applying it anywhere else is impossible.
 */
export interface PermissionRewriteRule extends PermissionMatch {
  readonly input: PatternSpec;
  /** Replacement for every match of `input`, with `$1`-style group references (`String.prototype.replace`). */
  readonly replace: string;
  readonly reason: string;
  /** @defaultValue true */
  readonly reversible?: boolean;
}

/**
 * Warns about the call: a `prompt` signal. Only usable where the trigger allows `prompt`; the
 * trigger table (docs/spec/hooks-and-oracles.md#triggers) allows `block` and `control` at `pre-tool-use`, so the oracle refuses warn rules
 * there (an unusable rule is a configuration error, not something to drop silently).
 */
export interface PermissionWarnRule extends PermissionMatch {
  /** The warning shown to the agent. */
  readonly reason: string;
  /** @defaultValue `medium` */
  readonly severity?: Severity;
  /** @defaultValue `[]` */
  readonly suggestions?: readonly string[];
  /** @defaultValue true */
  readonly continue_allowed?: boolean;
}

/** The block of a call that no allow rule covers (see {@link PermissionCheckOptions.allow}). */
export interface PermissionNotAllowed {
  /** @defaultValue `Tool "<name>" is not in the allow list of <oracle>.` */
  readonly reason?: string;
  /** @defaultValue `[]` */
  readonly resolution_path?: readonly string[];
  /** @defaultValue `permission-check` (the typical signal of `pre-tool-use`) */
  readonly type?: string;
}

/** Options of {@link createPermissionCheck}. */
export interface PermissionCheckOptions {
  /** @defaultValue `permission-check` */
  readonly name?: string;
  /** Checked first; when any deny rule matches, the oracle answers only with its block verdicts. @defaultValue `[]` */
  readonly deny?: readonly PermissionDenyRule[];
  /**
   * An allow list, checked after the deny rules: when it is not empty, a call that matches none
   * of its rules is denied (rule `not-allowed`). Empty or absent: every call not denied is allowed.
   *
   * An allow entry's `input` must cover what the tool acts on, not just some string in the input
   * (an agent writes every field: `{ command: "curl … | sh", description: "git status" }` must not
   * pass an entry written for `git status`):
   * - a shell tool's `command` (string or argv list): **every** command of the line, in normal
   *   form, must match (`git status && curl … | sh` fails on `curl …`); also with `field: command`.
   *   The line is read from the shell's own directory (relative paths as written) or, when the
   *   tool has a working-directory field, from there; never from the session's `context.cwd`.
   *   A command that writes a file through a redirection (`git status > ~/.bashrc`; not one onto
   *   `/dev/null`, `/dev/stdout`, `/dev/stderr` or a file descriptor) is covered only when the
   *   pattern speaks of each such redirection: it matches the command and no longer matches
   *   without that redirection (`^make > build\.log$` covers `make > build.log`; `^git status( |$)`
   *   and `^git status( .*)?$` do not cover `git status > ~/.bashrc`);
   * - with `field`: that field must be a string that matches (a path field, `file_path` or
   *   `notebook_path`, in normal form);
   * - the known path and address fields of the other tools (`file_path`, `notebook_path`, `url`):
   *   the field must be present and match (paths in normal form);
   * - any other tool: every string in the input must match, and there must be one.
   * @defaultValue `[]`
   */
  readonly allow?: readonly PermissionMatch[];
  /** The block for a call outside the allow list. */
  readonly not_allowed?: PermissionNotAllowed;
  /** Applied in order; several rules may rewrite the same string, each on the previous result. @defaultValue `[]` */
  readonly rewrite?: readonly PermissionRewriteRule[];
  /** @defaultValue `[]` */
  readonly warn?: readonly PermissionWarnRule[];
}

const TRIGGER: HookTrigger = 'pre-tool-use';
const MAX_NAME = 256;

interface CompiledMatch {
  readonly rule: string;
  readonly type: string | undefined;
  readonly tool: LinearPattern | undefined;
  readonly input: LinearPattern | undefined;
  readonly field: string | undefined;
  readonly shell: boolean;
}

interface CompiledRewrite extends CompiledMatch {
  readonly input: LinearPattern;
  readonly replace: string;
  readonly reason: string;
  readonly reversible: boolean;
}

interface CompiledVerdictRule extends CompiledMatch {
  readonly verdict: OracleVerdict;
}

interface CompiledDeny extends CompiledVerdictRule {
  readonly afterRewrite: boolean;
}

/**
 * One string found in the tool input; `path` (dotted, what `field` is compared with) and `target`
 * (its JSON Pointer, what a rewrite targets: unambiguous for keys with dots and array elements)
 * are undefined for the input's JSON text. `derived` marks a string the input does not hold as
 * such (a path's normal form), which is matched but never rewritten.
 */
interface Candidate {
  readonly path: string | undefined;
  readonly target: string | undefined;
  readonly value: string;
  readonly derived?: true;
}

/** The strings one tool call offers the rules, the shell commands read lazily (only shell rules need them). */
interface CallView {
  readonly toolName: string;
  readonly input: JsonObject;
  readonly candidates: readonly Candidate[];
  commands(): readonly Candidate[];
}

/** `session`: where the session's shell is (see {@link sessionStart}), undefined when the context does not say. */
function viewOf(toolName: string, input: JsonObject, session: string | undefined): CallView {
  const candidates = collectCandidates(input);
  let commands: Candidate[] | undefined;
  return {
    toolName,
    input,
    candidates,
    commands: () => (commands ??= collectCommands(input, session)),
  };
}

/** The path field an allow entry's `input` reads for the tools that have one (see PermissionCheckOptions.allow). */
const KNOWN_TOOL_FIELDS: Readonly<Record<string, string>> = Object.freeze({
  Read: 'file_path',
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookRead: 'notebook_path',
  NotebookEdit: 'notebook_path',
  WebFetch: 'url',
});
const PATH_FIELDS: ReadonlySet<string> = new Set(['file_path', 'notebook_path']);

/**
 * Creates a `permission-check` oracle for `pre-tool-use`. All options are checked here, so a bad
 * pattern or text fails when the worker starts, with the rule named, instead of at the first
 * hook.
 *
 * Answers, for one tool call:
 * - one `block` verdict per matching deny rule, and nothing else (a denied call needs no
 *   rewriting or warning);
 * - with an allow list, one `block` verdict (rule `not-allowed`) when no allow rule matches;
 * - otherwise at most one `control` verdict carrying every rewrite (one modification per rewritten
 *   string), followed by one `prompt` verdict per matching warn rule;
 * - nothing when the context has no `tool` object.
 *
 * @throws {@link OracleSetupError} with code `E_ORACLE_OPTIONS`.
 */
export function createPermissionCheck(options: PermissionCheckOptions): Oracle {
  const name = options.name ?? 'permission-check';
  if (typeof name !== 'string' || name.length > 128 || !ORACLE_NAME_PATTERN.test(name)) {
    throw optionsError('permission-check', `"name" ${JSON.stringify(name)} is not a valid oracle name`);
  }
  const denyRules = list(name, options.deny, 'deny').map((rule, index) => compileDeny(name, rule, `deny[${index}]`));
  const deny = denyRules.filter((rule) => !rule.afterRewrite);
  const denyAfterRewrite = denyRules.filter((rule) => rule.afterRewrite);
  const rewrite = list(name, options.rewrite, 'rewrite').map((rule, index) =>
    compileRewrite(name, rule, `rewrite[${index}]`),
  );
  const warn = list(name, options.warn, 'warn').map((rule, index) => compileWarn(name, rule, `warn[${index}]`));
  const allow = list(name, options.allow, 'allow').map((rule, index) => compileMatch(name, rule, `allow[${index}]`, 'allow'));
  const notAllowed = compileNotAllowed(name, options.not_allowed ?? {});
  requireIntensity(name, 'deny', denyRules.length + allow.length, 'block');
  requireIntensity(name, 'rewrite', rewrite.length, 'control');
  requireIntensity(name, 'warn', warn.length, 'prompt');

  return {
    name,
    triggers: [TRIGGER],
    evaluate(input: OracleInput): OracleVerdict[] {
      const tool = hookToolCall(input.context);
      if (tool === undefined) return [unreadableToolCall(name)];
      const call = viewOf(tool.name, tool.input, sessionStart(input.context));

      const denied = deny.filter((rule) => matches(rule, call)).map((rule) => rule.verdict);
      if (denied.length > 0) return denied;
      if (allow.length > 0 && !allow.some((rule) => allows(rule, call))) {
        return [notAllowed(call.toolName)];
      }

      const verdicts: OracleVerdict[] = [];
      const control = rewriteVerdict(rewrite, call);
      if (denyAfterRewrite.length > 0) {
        const rewritten = control === undefined ? call : viewOf(call.toolName, withModifications(call.input, control), sessionStart(input.context));
        const still = denyAfterRewrite.filter((rule) => matches(rule, rewritten)).map((rule) => rule.verdict);
        if (still.length > 0) return still;
      }
      if (control !== undefined) verdicts.push(control);
      for (const rule of warn) {
        if (matches(rule, call)) verdicts.push(rule.verdict);
      }
      return verdicts;
    },
  };
}

function rewriteVerdict(rules: readonly CompiledRewrite[], call: CallView): OracleVerdict | undefined {
  const candidates = call.candidates;
  const changed = new Map<string, { original: string; updated: string; reasons: string[] }>();
  const applied: CompiledRewrite[] = [];
  for (const rule of rules) {
    // Each rule works on the previous rules' result, so it is tried on that, not on the input as sent.
    if (rule.tool !== undefined && !rule.tool.test(call.toolName)) continue;
    let hit = false;
    for (const candidate of candidates) {
      if (candidate.target === undefined || candidate.derived === true || !fieldMatches(rule.field, candidate)) continue;
      const entry = changed.get(candidate.target);
      const current = entry?.updated ?? candidate.value;
      const updated = rule.input.replaceAll(current, rule.replace);
      if (updated === current) continue;
      hit = true;
      if (entry === undefined) {
        changed.set(candidate.target, { original: candidate.value, updated, reasons: [rule.reason] });
      } else {
        entry.updated = updated;
        entry.reasons.push(rule.reason);
      }
    }
    if (hit) applied.push(rule);
  }
  const modifications: Modification[] = [];
  for (const [target, change] of changed) {
    if (change.updated === change.original) continue;
    modifications.push({ target, original: change.original, updated: change.updated, reason: change.reasons.join('; ') });
  }
  const first = applied[0];
  if (modifications.length === 0 || first === undefined) return undefined;
  return {
    intensity: 'control',
    ...(first.type === undefined ? {} : { type: first.type }),
    rule: applied.map((rule) => rule.rule).join(',').slice(0, MAX_NAME),
    payload: {
      level: 'controlling',
      decision: 'allow_with_modification',
      modifications,
      reversible: applied.every((rule) => rule.reversible),
    },
  };
}

/** Deny, rewrite and warn rules: the tool matches, and `input` matches some candidate (or shell command). */
function matches(rule: CompiledMatch, call: CallView): boolean {
  if (rule.tool !== undefined && !rule.tool.test(call.toolName)) return false;
  const pattern = rule.input;
  if (pattern === undefined) return true;
  const test = (c: Candidate) => fieldMatches(rule.field, c) && pattern.test(c.value);
  return call.candidates.some(test) || (rule.shell && isShellTool(call.toolName) && call.commands().some(test));
}

/** Whether `field` (a dotted path, or a JSON Pointer starting with `/`) names the candidate; any candidate without one. */
function fieldMatches(field: string | undefined, candidate: Candidate): boolean {
  if (field === undefined) return true;
  return field.startsWith('/') ? candidate.target === field : candidate.path === field;
}

/** The last key of a field (dotted path or JSON Pointer): `file_path` of `/edits/0/file_path`. */
function lastKey(field: string): string {
  return field.startsWith('/') ? field.slice(field.lastIndexOf('/') + 1) : field.slice(field.lastIndexOf('.') + 1);
}

/**
 * Allow entries: the tool matches, and `input` covers what the tool acts on (see
 * PermissionCheckOptions.allow): a shell tool's every command, a named or known field, or else
 * every string of the input.
 */
function allows(rule: CompiledMatch, call: CallView): boolean {
  if (rule.tool !== undefined && !rule.tool.test(call.toolName)) return false;
  const pattern = rule.input;
  if (pattern === undefined) return true;
  const command = call.input['command'];
  if (isShellTool(call.toolName) && (rule.field === undefined || rule.field === 'command' || rule.field === '/command') && command !== undefined) {
    if (typeof command !== 'string' && !(Array.isArray(command) && command.every((word) => typeof word === 'string'))) return false;
    // Read from the shell's own directory (relative paths as written: `^rm -rf (build|dist)$`
    // covers `rm -rf build` wherever it runs), or from the tool's working-directory field, where
    // the tool runs it (`^rm -rf /tmp/` covers `rm -rf x` with `workdir: /tmp`) — only for a tool
    // whose runtime honours that field (HONOURED_DIRECTORY_FIELDS): a model can add `workdir` to
    // any tool's input, and a runtime that ignores it runs the command where the session is.
    // Never from the session's directory: the context says where the session is, and an agent
    // that writes its own context must not widen what an allow entry covers (see sessionStart).
    const line = command as string | readonly string[];
    const covers = (commands: readonly ShellCommand[]) => commands.length > 0 && commands.every((one) => coversCommand(pattern, one));
    const start = honouredStart(call.toolName, call.input);
    return covers(shellCommandList(line)) || (start !== '.' && covers(shellCommandList(line, start)));
  }
  const field = rule.field ?? (Object.hasOwn(KNOWN_TOOL_FIELDS, call.toolName) ? KNOWN_TOOL_FIELDS[call.toolName] : undefined);
  if (field !== undefined) {
    const value = call.candidates.find((c) => fieldMatches(field, c) && c.derived !== true)?.value;
    if (value === undefined) return false;
    return pattern.test(PATH_FIELDS.has(lastKey(field)) ? normalizePosixPath(value) : value);
  }
  const strings = call.candidates.filter((c) => c.path !== undefined && c.derived !== true);
  return strings.length > 0 && strings.every((c) => pattern.test(c.value));
}

/** Most file-writing redirections of one command an allow entry can cover (each costs one more match). */
const MAX_COVERED_WRITES = 16;

/**
 * Whether an allow entry's pattern covers one shell command: it matches the command's normal form,
 * and every redirection that writes a file is one the pattern needs (without it, the pattern no
 * longer matches). A pattern written for a command (`^git status( |$)`, `^npm test( .*)?$`) matches
 * with or without `> ~/.bashrc` at the end, so it does not cover that write.
 */
function coversCommand(pattern: LinearPattern, command: ShellCommand): boolean {
  if (!pattern.test(command.text)) return false;
  let writes = 0;
  for (let index = 0; index < command.redirects.length; index += 1) {
    if (!(command.redirects[index] as ShellRedirect).write) continue;
    writes += 1;
    if (writes > MAX_COVERED_WRITES || pattern.test(withoutRedirect(command, index))) return false;
  }
  return true;
}

/** `input` with the control verdict's modifications applied (their targets are the JSON Pointers of strings, see collectCandidates). */
function withModifications(input: JsonObject, control: OracleVerdict): JsonObject {
  const payload = control.payload as { modifications?: readonly Modification[] };
  const updates = new Map((payload.modifications ?? []).map((m) => [m.target, m.updated] as const));
  const rebuild = (value: unknown, segments: (string | number)[]): unknown => {
    if (typeof value === 'string') {
      const target = pointerTarget(segments);
      return updates.has(target) ? updates.get(target) : value;
    }
    if (Array.isArray(value)) return value.map((child: unknown, i) => rebuild(child, [...segments, i]));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, rebuild(child, [...segments, key])]));
    }
    return value;
  };
  return rebuild(input, []) as JsonObject;
}

/** The block for a context whose tool call cannot be read (see the module comment). */
function unreadableToolCall(oracle: string): OracleVerdict {
  return {
    intensity: 'block',
    rule: 'unreadable-tool-call',
    payload: {
      level: 'blocking',
      decision: 'deny',
      reason: `${oracle} cannot read the tool call of this hook (context.tool must be { name, input } with an object input), so it cannot allow it.`,
      resolvable: true,
      resolution_path: ['send the tool call as context.tool = { name, input: { …arguments } }'],
    },
  };
}

/**
 * The strings a rule's `input` pattern is tested against: every string inside the input object
 * (with its dotted path) and the whole object as JSON text.
 */
function collectCandidates(input: JsonObject): Candidate[] {
  const found: Candidate[] = [];
  const stack: { value: unknown; path: string; segments: (string | number)[] }[] = [{ value: input, path: '', segments: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, segments } = item;
    if (typeof value === 'string') {
      found.push({ path, target: pointerTarget(segments), value });
      // A path's normal form, so that a pattern on `/etc/` also sees `/work/../etc/x`.
      if (value.startsWith('/') && value.length <= MAX_PATH_CHARS && !/\s/.test(value)) {
        const normal = normalizePosixPath(value);
        if (normal !== value) found.push({ path, target: pointerTarget(segments), value: normal, derived: true });
      }
    } else if (typeof value === 'object' && value !== null) {
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
      for (const [key, child] of entries.reverse()) {
        stack.push({ value: child, path: path === '' ? String(key) : `${path}.${key}`, segments: [...segments, key] });
      }
    }
  }
  found.push({ path: undefined, target: undefined, value: JSON.stringify(input) });
  return found;
}

/** Fields in which shell tools take the directory their command runs in (Codex `workdir`, Gemini `directory`, `cwd`). */
const WORKING_DIRECTORY_FIELDS = ['workdir', 'cwd', 'directory'] as const;

type DirectoryField = (typeof WORKING_DIRECTORY_FIELDS)[number];

/** A shell tool's working-directory field (the first of `fields` it has) as given, or undefined without one. */
function directoryField(input: JsonObject, fields: readonly DirectoryField[] = WORKING_DIRECTORY_FIELDS): JsonValue | undefined {
  for (const field of fields) {
    const value = input[field];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/**
 * The working-directory field each shell tool's runtime runs its command in (Codex's `shell` and
 * `local_shell`: `workdir`; Gemini's `run_shell_command`: `directory`), by lower-case tool name.
 * Deny rules read every field of WORKING_DIRECTORY_FIELDS on any tool (more readings can only add
 * denials); allow entries read only these (see allows).
 */
const HONOURED_DIRECTORY_FIELDS: Readonly<Record<string, DirectoryField>> = {
  shell: 'workdir',
  local_shell: 'workdir',
  run_shell_command: 'directory',
};

/** Where the runtime of `toolName` runs its command, from the field it honours (`.` without one; not a string: unknown). */
function honouredStart(toolName: string, input: JsonObject): string {
  const name = toolName.toLowerCase();
  const field = Object.hasOwn(HONOURED_DIRECTORY_FIELDS, name) ? HONOURED_DIRECTORY_FIELDS[name] : undefined;
  return field === undefined ? '.' : startOf(input, [field]);
}

/** Where a shell tool's command starts: its working-directory field (the first of `fields`) read as `cd` would (`.` without one; not a string: unknown). */
function startOf(input: JsonObject, fields?: readonly DirectoryField[]): string {
  const value = directoryField(input, fields);
  if (value === undefined) return '.';
  return typeof value === 'string' ? startDirectory(value) : UNKNOWN_DIRECTORY;
}

/**
 * Where the session's shell is, from the context's `cwd` (every hook of Claude Code, Codex and
 * Copilot carries it; SDK agents may set it): a shell tool that keeps its directory between calls
 * runs `rm -rf *` there after a `cd /` in an earlier call. An absolute path is followed in normal
 * form (`/home/u/..` → `/home`; it is a path the runtime reports, not shell text, so `$` or `*` in
 * it are characters of a name); `~`, `~/x` is under the home directory; a relative path says
 * nothing more than the shell's own directory (undefined); a value the reader cannot follow (`$X`,
 * `..`, `""`, longer than a path can be, not a string) is an unknown directory; absent, undefined.
 *
 * The agent may write its own context, so this reading only ever adds: deny rules see the commands
 * read from here besides their other readings, while allow entries never read from here (a false
 * `cwd` can fail to add protection, never remove it).
 */
function sessionStart(context: Readonly<JsonObject>): string | undefined {
  const cwd = context['cwd'];
  if (cwd === undefined || cwd === null) return undefined;
  if (typeof cwd !== 'string' || cwd.length > MAX_PATH_CHARS) return UNKNOWN_DIRECTORY;
  if (cwd.startsWith('/')) {
    const normal = normalizePosixPath(cwd);
    return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
  }
  const start = startDirectory(cwd);
  return /^[/~$]/.test(start) ? start : undefined;
}

/**
 * The locations a shell tool's `command` is read from besides the shell's own directory, for deny
 * rules: its working-directory field, and the session's directory (see {@link sessionStart}), which
 * a relative field is under (Codex resolves `workdir: "packages/app"` against the session's).
 */
function startsOf(input: JsonObject, session: string | undefined): string[] {
  const starts: string[] = [];
  const tool = startOf(input);
  if (tool !== '.') starts.push(tool);
  if (session !== undefined) {
    const field = directoryField(input);
    const located = field === undefined ? session : typeof field === 'string' ? startDirectory(field, session) : tool;
    if (located !== '.' && !starts.includes(located)) starts.push(located);
  }
  return starts;
}

/** Longest string treated as a path whose normal form is matched too. */
const MAX_PATH_CHARS = 4096;

/**
 * The shell commands of the input, for `shell` rules: every string read as a shell line, and
 * every list of strings as an argv, each command in normal form (shell/shell-line.ts), with the
 * path of the value it came from.
 */
function collectCommands(input: JsonObject, session: string | undefined): Candidate[] {
  const found: Candidate[] = [];
  // The tool's `command` also runs where its working-directory field or the session says (startsOf).
  const command = input['command'];
  if (typeof command === 'string' || (Array.isArray(command) && command.length > 0 && command.every((word) => typeof word === 'string'))) {
    for (const start of startsOf(input, session)) {
      for (const line of shellCommandList(command as string | readonly string[], start)) found.push({ path: 'command', target: '/command', value: line.text, derived: true });
    }
  }
  const stack: { value: unknown; path: string; segments: (string | number)[] }[] = [{ value: input, path: '', segments: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, path, segments } = item;
    // Derived: a command in normal form is matched, never rewritten.
    if (typeof value === 'string') {
      for (const command of shellCommands(value)) found.push({ path, target: pointerTarget(segments), value: command, derived: true });
    } else if (typeof value === 'object' && value !== null) {
      if (Array.isArray(value) && value.length > 0 && value.every((word) => typeof word === 'string')) {
        for (const command of shellCommands(value as string[])) found.push({ path, target: pointerTarget(segments), value: command, derived: true });
      }
      const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
      for (const [key, child] of entries.reverse()) {
        stack.push({ value: child, path: path === '' ? String(key) : `${path}.${key}`, segments: [...segments, key] });
      }
    }
  }
  return found;
}

// --- options --------------------------------------------------------------------------------

function compileDeny(oracle: string, rule: PermissionDenyRule, at: string): CompiledDeny {
  const match = compileMatch(oracle, rule, at, 'deny');
  const afterRewrite = rule.after_rewrite ?? false;
  if (typeof afterRewrite !== 'boolean') throw optionsError(oracle, `${at}.after_rewrite must be a boolean`);
  const resolutionPath = textList(oracle, rule.resolution_path, `${at}.resolution_path`);
  const resolvable = rule.resolvable ?? resolutionPath.length > 0;
  if (typeof resolvable !== 'boolean') throw optionsError(oracle, `${at}.resolvable must be a boolean`);
  return {
    ...match,
    afterRewrite,
    verdict: verdict(oracle, at, match, 'block', {
      level: 'blocking',
      decision: 'deny',
      reason: text(oracle, rule.reason, `${at}.reason`),
      resolvable,
      resolution_path: resolutionPath,
    }),
  };
}

function compileWarn(oracle: string, rule: PermissionWarnRule, at: string): CompiledVerdictRule {
  const match = compileMatch(oracle, rule, at, 'warn');
  const severity = SeveritySchema.safeParse(rule.severity ?? 'medium');
  if (!severity.success) {
    throw optionsError(oracle, `${at}.severity must be one of ${SeveritySchema.options.join(', ')}`);
  }
  const continueAllowed = rule.continue_allowed ?? true;
  if (typeof continueAllowed !== 'boolean') throw optionsError(oracle, `${at}.continue_allowed must be a boolean`);
  return {
    ...match,
    verdict: verdict(oracle, at, match, 'prompt', {
      level: 'prompting',
      decision: 'warn',
      severity: severity.data,
      message: text(oracle, rule.reason, `${at}.reason`),
      suggestions: textList(oracle, rule.suggestions, `${at}.suggestions`),
      continue_allowed: continueAllowed,
    }),
  };
}

function compileRewrite(oracle: string, rule: PermissionRewriteRule, at: string): CompiledRewrite {
  const match = compileMatch(oracle, rule, at, 'rewrite');
  if (match.input === undefined) throw optionsError(oracle, `${at}.input is required: it says what to rewrite`);
  if (typeof rule.replace !== 'string') throw optionsError(oracle, `${at}.replace must be a string`);
  const reversible = rule.reversible ?? true;
  if (typeof reversible !== 'boolean') throw optionsError(oracle, `${at}.reversible must be a boolean`);
  return {
    ...match,
    input: match.input,
    replace: rule.replace,
    reason: text(oracle, rule.reason, `${at}.reason`),
    reversible,
  };
}

function compileNotAllowed(oracle: string, options: PermissionNotAllowed): (toolName: string | undefined) => OracleVerdict {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) throw optionsError(oracle, 'not_allowed must be an object');
  const reason = options.reason === undefined ? undefined : text(oracle, options.reason, 'not_allowed.reason');
  const resolutionPath = textList(oracle, options.resolution_path, 'not_allowed.resolution_path');
  if (options.type !== undefined && !SignalTypeSchema.safeParse(options.type).success) {
    throw optionsError(oracle, 'not_allowed.type must be a lowercase kebab-case signal type');
  }
  return (toolName) => ({
    intensity: 'block',
    ...(options.type === undefined ? {} : { type: options.type }),
    rule: 'not-allowed',
    payload: {
      level: 'blocking',
      decision: 'deny',
      reason: reason ?? `Tool ${JSON.stringify((toolName ?? '(unnamed)').slice(0, 128))} is not in the allow list of ${oracle}.`,
      resolvable: resolutionPath.length > 0,
      resolution_path: resolutionPath,
    },
  });
}

function compileMatch(oracle: string, rule: PermissionMatch, at: string, kind: 'deny' | 'allow' | 'rewrite' | 'warn'): CompiledMatch {
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) throw optionsError(oracle, `${at} must be an object`);
  const shell = rule.shell ?? false;
  if (typeof shell !== 'boolean') throw optionsError(oracle, `${at}.shell must be a boolean`);
  if (shell && kind !== 'deny') {
    throw optionsError(
      oracle,
      kind === 'allow'
        ? `${at}.shell: allow entries always read a shell tool's commands one by one; leave "shell" out`
        : `${at}.shell: only deny rules match shell commands in normal form (a ${kind} rule works on the text as sent)`,
    );
  }
  if (shell && rule.input === undefined) throw optionsError(oracle, `${at}.shell needs an "input" pattern to apply to`);
  if (rule.tool === undefined && rule.input === undefined) {
    throw optionsError(oracle, `${at} needs "tool", "input" or both; to match every tool, say tool: ".*"`);
  }
  if (rule.field !== undefined && (typeof rule.field !== 'string' || rule.field.length === 0)) {
    throw optionsError(oracle, `${at}.field must be a non-empty dotted path`);
  }
  if (rule.field !== undefined && rule.input === undefined) {
    throw optionsError(oracle, `${at}.field needs an "input" pattern to apply to`);
  }
  const name = rule.name ?? at;
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME) {
    throw optionsError(oracle, `${at}.name must be a string of 1 to ${MAX_NAME} characters`);
  }
  if (rule.type !== undefined && !SignalTypeSchema.safeParse(rule.type).success) {
    throw optionsError(oracle, `${at}.type must be a lowercase kebab-case signal type, e.g. "security-violation"`);
  }
  return {
    rule: name,
    type: rule.type,
    tool: rule.tool === undefined ? undefined : pattern(oracle, rule.tool, `${at}.tool`, true),
    input: rule.input === undefined ? undefined : pattern(oracle, rule.input, `${at}.input`, false),
    field: rule.field,
    shell,
  };
}

/**
 * A pattern on RE2. A string or `{ regex, flags }` tool pattern is anchored to the whole name; a
 * `RegExp` keeps its own anchors (its `g`/`y` are dropped: a test keeps no state).
 */
function pattern(oracle: string, spec: PatternSpec, at: string, whole: boolean): LinearPattern {
  const source = spec instanceof RegExp ? spec.source : typeof spec === 'string' ? spec : (spec as { regex?: unknown } | null)?.regex;
  if (typeof source !== 'string' || source.length === 0) {
    throw optionsError(oracle, `${at} must be a non-empty pattern source, { regex, flags } or a RegExp`);
  }
  try {
    return compilePatternSpec(spec, { whole: whole && !(spec instanceof RegExp) });
  } catch (error) {
    if (error instanceof PatternError) throw optionsError(oracle, `${at}: ${error.message}`, error);
    throw error;
  }
}

/** Builds the fixed verdict of a rule now and checks it, so that a rule can never produce an invalid signal. */
function verdict(
  oracle: string,
  at: string,
  match: CompiledMatch,
  intensity: Intensity,
  payload: SignalPayload,
): OracleVerdict {
  const parsed = SignalPayloadSchema.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw optionsError(oracle, `${at}: ${issue === undefined ? 'invalid' : `${issue.path.join('.')}: ${issue.message}`}`);
  }
  return Object.freeze({
    intensity,
    ...(match.type === undefined ? {} : { type: match.type }),
    rule: match.rule,
    payload: parsed.data,
  });
}

function requireIntensity(oracle: string, kind: string, count: number, intensity: Intensity): void {
  if (count === 0 || isIntensityAllowed(TRIGGER, intensity)) return;
  throw optionsError(
    oracle,
    `${kind} rules produce "${intensity}" signals, which ${TRIGGER} does not allow (allowed: ${TRIGGERS[TRIGGER].allowed.join(', ')}); use deny or rewrite rules instead`,
  );
}

function list<T>(oracle: string, value: readonly T[] | undefined, key: string): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw optionsError(oracle, `"${key}" must be an array of rules`);
  return value;
}

function text(oracle: string, value: unknown, at: string): string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > LIMITS.maxText) {
    throw optionsError(oracle, `${at} must be a non-empty string of at most ${LIMITS.maxText} characters`);
  }
  return value;
}

function textList(oracle: string, value: readonly string[] | undefined, at: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw optionsError(oracle, `${at} must be an array of strings`);
  return value.map((item, index) => text(oracle, item, `${at}[${index}]`));
}

function optionsError(oracle: string, message: string, cause?: unknown): OracleSetupError {
  return new OracleSetupError('E_ORACLE_OPTIONS', `${oracle}: ${message}`, cause === undefined ? {} : { cause });
}

