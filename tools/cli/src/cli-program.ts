/**
 * The `ahp` command tree, declared once with commander: every command's arguments, options and
 * prose. Help (`--help` at every level), errors for unknown commands, unknown options, missing
 * arguments and missing option values, and the shell completion script are all generated from it.
 */
// Each command's module is imported when the command runs, not before: `ahp --help` or a token
// command need not load Redis, BullMQ and the rule engine (measured: @ahp/store alone was most of
// a second of every start on an idle machine).
import { Argument, Command, Option } from 'commander';
import { DEFAULT_KEY_PREFIX } from '@ahp/store/keys';
import type { CliIo } from './cli-errors.js';
import type { ConfigValues } from './config-commands.js';
import type { ReplayValues } from './config-replay-command.js';
import { DELEGATED_COMMANDS } from './delegated-commands.js';
import type { DoctorValues } from './doctor-command.js';
import type { InitValues } from './init-command.js';
import type { LogValues } from './log-commands.js';
import type { OperatorValues } from './operator-commands.js';
import type { ShadowValues } from './shadow-commands.js';
import { bashCompletion, zshCompletion } from './shell-completion.js';
import type { TokenValues } from './token-commands.js';

/** Option values as the command modules read them: keyed by the long flag (`redis-url`), not commander's camelCase. */
export type OptionValues = Record<string, unknown>;

/** An option: its flags (`--since <T>`, a value; `--strict`, a switch) and its help line. */
type OptionDef = readonly [flags: string, description: string];

/** What a leaf command does with its positional arguments (exactly as declared) and option values. */
type Run = (args: (string | undefined)[], values: OptionValues, io: CliIo) => Promise<number>;

interface LeafSpec {
  /** Positional arguments, commander style: `<file>` required, `[shell]` optional. */
  args?: readonly string[];
  /** One line, for the parent's list of commands. */
  summary: string;
  /** What it does, in full, for its own `--help`. */
  details?: string;
  options?: readonly OptionDef[];
  run: Run;
}

const GLOBAL_OPTIONS: readonly OptionDef[] = [
  ['--redis-url <URL>', 'Redis to use (default: $REDIS_URL)'],
  ['--redis-cluster-nodes <LIST>', 'a Redis Cluster, host:port,host:port… (default: $REDIS_CLUSTER_NODES); with it, --redis-url gives only the scheme and credentials'],
  ['--prefix <P>', `key prefix of the deployment (default: $AHP_KEY_PREFIX, else "${DEFAULT_KEY_PREFIX}")`],
  ['--connect-timeout <MS>', 'give up connecting to Redis after this long (default 5000; exit code 3)'],
  ['--json', 'machine-readable output'],
];

const GATEWAY_URL: OptionDef = ['--gateway <URL>', "the gateway's HTTP address (default: $AHP_GATEWAY_URL)"];
const GATEWAY: readonly OptionDef[] = [GATEWAY_URL, ['--timeout <MS>', 'give up waiting for the gateway after this long (exit code 3)']];

const OPERATOR_NOTE = 'The operator token is read from $AHP_OPERATOR_TOKEN (see docs/operator-api.md for the roles).';

const PLUGINS: OptionDef = ['--plugins <LIST>', 'oracle plugin modules the workers load, comma-separated (default: $AHP_ORACLE_PLUGINS), so oracle names resolve as they will there'];

const FILTERS: readonly OptionDef[] = [
  ['--since <T>', 'signals sent at or after T: an ISO 8601 time (2026-02-09T10:00:00Z), a date (2026-02-09, UTC) or a duration back from now (90s, 15m, 2h, 7d)'],
  ['--until <T>', 'signals sent before T (same forms)'],
  ['--agent <ID>', 'one agent'],
  ['--session <ID>', 'one session'],
  ['--hook <TRIGGER>', 'one hook trigger, e.g. pre-issue-submit'],
  ['--intensity <I>', 'block, control, prompt or aid'],
  ['--source <NAME>', 'one oracle, e.g. checklist-validator'],
];
const FILTERS_NOTE = 'Filters combine with AND.';

const WAIT: OptionDef = [
  '--wait <MS>',
  "how long a permission prompt may wait for an operator's decision (default 45000; the gateway may hold it less, AHP_PERMISSION_WAIT_MS); the answer is awaited that much longer, and asked again of any gateway if the connection is lost meanwhile",
];
const HOOK_GATEWAY: readonly OptionDef[] = [GATEWAY_URL, ['--timeout <MS>', 'give up waiting for the gateway after this long (default 10000)']];
const TOKEN_FILE: OptionDef = ['--token-file <PATH>', 'read the agent token from this file (as "ahp init codex" writes it) instead of $AHP_TOKEN'];

const MINT: readonly OptionDef[] = [
  ['--token <TOKEN>', 'the agent token to use (one you were given)'],
  ['--file <PATH>', "or mint one into the gateway's agent tokens file (AHP_AGENT_TOKENS_FILE) …"],
  ['--agent <ID>', '… for this agent id (with --name, --team, --role, --environment as in "ahp tokens agent"); then reload the gateways (SIGHUP)'],
  ['--name <NAME>', 'display name of a minted token'],
  ['--team <ID>', 'team of the agent of a minted token'],
  ['--role <ROLE>', 'lead | teammate, of a minted token'],
  ['--environment <ID>', 'environment of the agent of a minted token'],
];

/** The groups of commands, each with its leaves. `ahp start` and `ahp bench` are added apart (delegated programs). */
const TREE: Readonly<Record<string, { summary: string; leaves: Readonly<Record<string, LeafSpec & { isDefault?: boolean }>> }>> = {
  config: {
    summary: 'the hooks configuration: validate, publish, inspect and replay versions',
    leaves: {
      validate: {
        args: ['<file>'],
        summary: 'check a hooks.yaml without publishing it (no Redis needed)',
        details: `Checks the file as the workers would: YAML, schema, expressions, oracle names.
Prints each issue as "file:line:column path: message"; exit code 1 when there is any.
Then lints a valid file and prints each warning as "file:line:column path: warning: message":
a trigger that can never deny, a rule that reads a field its trigger never has, a rule
shadowed by an earlier one (docs/hooks.md, "Lint warnings"). Warnings leave the exit code 0.`,
        options: [['--strict', 'exit code 1 when there are warnings too (for CI)'], PLUGINS],
        run: async ([file], values, io) => (await import('./config-commands.js')).configValidate(file, values as ConfigValues, io),
      },
      publish: {
        args: ['<file>'],
        summary: 'validate a hooks.yaml and make it the current version for every worker',
        details: `Validates the file first (nothing is published when it has issues; exit code 1), then
stores it as the next version and tells every running worker, which switch to it without a
restart. Publishing the text of the current version again changes nothing ("unchanged").`,
        options: [['--by <NAME>', 'who publishes, recorded with the version (default: user@host)'], PLUGINS],
        run: async ([file], values, io) => (await import('./config-commands.js')).configPublish(file, values as ConfigValues, io),
      },
      diff: {
        args: ['<file>'],
        summary: 'unified diff from the current version to a file',
        details: 'Shows what publishing the file would change, as a unified diff of the texts.',
        options: [['--version <N>', 'compare with version N instead of the current one']],
        run: async ([file], values, io) => (await import('./config-commands.js')).configDiff(file, values as ConfigValues, io),
      },
      show: {
        summary: 'print the text of the current version (or of --version N)',
        details: `Prints the YAML of a version exactly as it was published (a header line on stderr says
which version); --json prints the whole stored version, parsed configuration included.`,
        options: [['--version <N>', 'this version instead of the current one']],
        run: async (_args, values, io) => (await import('./config-commands.js')).configShow(values as ConfigValues, io),
      },
      history: {
        summary: 'list published versions, newest first',
        details: 'Lists versions with their time, publisher and digest; * marks the current one.',
        options: [['--limit <N>', 'at most N versions (default 20)']],
        run: async (_args, values, io) => (await import('./config-commands.js')).configHistory(values as ConfigValues, io),
      },
      replay: {
        args: ['<file>'],
        summary: 'what a candidate hooks.yaml would have decided on recorded hooks (operator API)',
        details: `Evaluates the candidate on the hooks the workers recorded in the window (docs/hooks.md,
"Replay a candidate configuration"), with the engine the workers run and escalation counters
simulated per agent, and prints what would change: how many decisions, from what to what
(allow → block, control → block, …), per rule and per agent, with examples; decisions that would
wait for an approval; oracles of the candidate that fail. Nothing is published. The replay runs
on the oracle workers as a job; its progress goes to stderr (a bar on a terminal), and Ctrl-C
cancels it. A candidate that does not validate is printed as "file:line:column path: message"
(exit code 1).

${OPERATOR_NOTE}`,
        options: [
          ['--since <T>', 'replay hooks recorded at or after T (required): an ISO 8601 time, a date, or a duration back from now (90s, 15m, 2h, 7d)'],
          ['--until <T>', 'and before T (default: now)'],
          ['--agent <ID>', "only this agent's hooks"],
          ['--trigger <T>', 'only hooks of this trigger, e.g. pre-tool-use'],
          ['--limit <N>', 'at most N hooks, the oldest of the window first (default 10000, at most 100000)'],
          ['--poll <MS>', 'how often to ask for progress (default 500)'],
          ...GATEWAY,
        ],
        run: async ([file], values, io) => (await import('./config-replay-command.js')).configReplay(file, values as ReplayValues, io),
      },
    },
  },
  log: {
    summary: 'the signal log: export and statistics',
    leaves: {
      export: {
        summary: 'write the signal log as JSONL, one line per signal with its response',
        details: `Each line carries the fields of docs/spec/signal-log.md#signal-log-lines (timestamp, hook,
intensity, source, consumed, action) and signal_id, type, rule, config_version, agent_id,
session_id, correlation_id, latency_ms, stages (gateway_ms, queue_ms, worker_ms),
responded_at and subject (what the signal acted on; see docs/signal-log.md). Oldest first. A count of lines goes to stderr, and the
entries read so far while it runs (a bar on a terminal). ${FILTERS_NOTE}`,
        options: [...FILTERS, ['--limit <N>', 'at most N lines (the oldest that match)'], ['--out <FILE>', 'write to FILE instead of stdout']],
        run: async (_args, values, io) => (await import('./log-commands.js')).logExport(values as LogValues, io),
      },
      stats: {
        summary: 'statistics per hook, oracle, intensity, action, rule and version',
        details: `How often each intensity was sent and how agents answered it (e.g. the share of blocks
followed by retry_after_fix and by abort), per hook, oracle, rule and configuration version, and
the decision latency. ${FILTERS_NOTE}`,
        options: FILTERS,
        run: async (_args, values, io) => (await import('./log-commands.js')).logStats(values as LogValues, io),
      },
    },
  },
  hook: {
    summary: 'agent hooks answered by the control plane (Claude Code, Codex and Copilot command hooks)',
    leaves: {
      'claude-code': {
        summary: "Claude Code's command hook: hook input on stdin, the answer on stdout",
        details: `Posts the hook input Claude Code writes on stdin to the gateway's /v1/hooks/claude-code with
the agent token from $AHP_TOKEN, and prints the gateway's answer. Always exits 0 with a JSON
answer: when the gateway cannot be asked, a PreToolUse is denied explicitly (tool calls fail
closed) and other events go on with a systemMessage. Input that is not JSON exits 2, which
Claude Code treats as a blocking error. A PermissionRequest waiting for an operator's approval
is held by the gateway until the operator decides, or its fallback answers. See
docs/claude-code.md.`,
        options: [WAIT, ...HOOK_GATEWAY],
        run: async (_args, values, io) => (await import('./claude-code-hook.js')).hookClaudeCode(values, io),
      },
      codex: {
        summary: "OpenAI Codex's command hook: hook input on stdin, the answer on stdout",
        details: `Posts the hook input Codex writes on stdin to the gateway's /v1/hooks/codex with the agent
token from $AHP_TOKEN, and prints the gateway's answer, checked against Codex's output schema of
the event. Exits 0 with a JSON answer: when the gateway cannot be asked, a PreToolUse or a
PermissionRequest is denied explicitly (tool calls fail closed) and other events go on with a
systemMessage. Input that is not JSON, or an event AHP does not map, exits 2 with the reason on
stderr, which Codex treats as a blocking error. See docs/coding-agents.md.`,
        options: [TOKEN_FILE, WAIT, ...HOOK_GATEWAY],
        run: async (_args, values, io) => (await import('./codex-hook.js')).hookCodex(values, io),
      },
      copilot: {
        args: ['<event>'],
        summary: "GitHub Copilot's command hook (CLI and cloud agent): hook input on stdin, the answer on stdout",
        details: `Posts the hook input Copilot writes on stdin, with <event> (the camelCase event of the hooks
file: preToolUse, permissionRequest, agentStop, …) as its hook_event_name, to the gateway's
/v1/hooks/copilot with the agent token from $AHP_TOKEN, and prints the gateway's answer,
checked against Copilot's output of the event. Exits 0 with a JSON answer: when the gateway
cannot be asked, a preToolUse or a permissionRequest is denied explicitly (tool calls fail
closed) and other events get {}. errorOccurred, subagentStart and notification are answered {}
without asking (no trigger evaluates them). Input that is not a JSON object, or an event AHP
does not know, exits 2 with the reason on stderr. See docs/coding-agents.md.`,
        options: [TOKEN_FILE, WAIT, ...HOOK_GATEWAY],
        run: async ([event], values, io) => (await import('./copilot-hook.js')).hookCopilot(event, values, io),
      },
    },
  },
  init: {
    summary: 'set an agent up to ask AHP (Claude Code, Codex, Copilot)',
    leaves: {
      'claude-code': {
        summary: 'set Claude Code up to ask AHP: token, hooks in .claude/settings.json, merged',
        details: `Writes the AHP hooks of every Claude Code event the gateway maps (PreToolUse, PostToolUse,
UserPromptSubmit, Stop, SubagentStop, SessionStart, SessionEnd, PreCompact, PermissionRequest)
into the settings file, merged with what is there: other hooks and settings stay, the AHP hooks
of an earlier run are replaced, so running it again changes nothing. The agent token goes into
the env of the personal settings (.claude/settings.local.json; with --user,
~/.claude/settings.json), never into the shared project file. Then run "ahp doctor". See
docs/claude-code.md.`,
        options: [
          ['--project', 'this project: .claude/settings.json in the current folder (default)'],
          ['--user', 'every project of this user: ~/.claude/settings.json'],
          ['--command', 'command hooks (ahp hook claude-code) instead of HTTP hooks'],
          ...MINT,
          ...GATEWAY,
        ],
        run: async (_args, values, io) => (await import('./init-command.js')).initClaudeCode(values as InitValues, io),
      },
      codex: {
        summary: 'set OpenAI Codex up to ask AHP: token, command hooks in .codex/hooks.json, merged',
        details: `Writes the command hook "ahp hook codex" for every Codex event the gateway maps (SessionStart,
PreToolUse, PermissionRequest, PostToolUse, UserPromptSubmit, Stop, PreCompact, PostCompact) into
Codex's hooks.json, merged with what is there: other hooks stay, the AHP hooks of an earlier run
are replaced, so running it again changes nothing. The agent token goes into .codex/ahp-token
(mode 0600, listed in .codex/.gitignore), which the hooks read with --token-file. Then trust the
new hooks in Codex (/hooks). See docs/coding-agents.md.`,
        options: [
          ['--project', 'this project: .codex/hooks.json in the current folder (default)'],
          ['--user', 'every project of this user: ~/.codex/hooks.json'],
          ...MINT,
          ...GATEWAY,
        ],
        run: async (_args, values, io) => (await import('./init-codex.js')).initCodex(values as InitValues, io),
      },
      copilot: {
        summary: 'set GitHub Copilot (CLI, cloud agent) up to ask AHP: command hooks in .github/hooks/ahp.json, merged',
        details: `Writes the command hook "ahp hook copilot <event>" for every Copilot event the gateway evaluates
(sessionStart, sessionEnd, userPromptSubmitted, preToolUse, permissionRequest, postToolUse,
postToolUseFailure, agentStop, subagentStop, preCompact) into a hooks file of its own, merged
with what that file holds: other handlers stay, the AHP ones of an earlier run are replaced.
A repository's hooks read the agent token from AHP_TOKEN (your environment for the CLI, a secret
of the repository's "copilot" environment for the cloud agent). With --user, --token or --file
and --agent give the token, kept in ~/.copilot/ahp-token (mode 0600). See docs/coding-agents.md.`,
        options: [
          ['--project', 'this repository: .github/hooks/ahp.json (default; the CLI and the cloud agent)'],
          ['--user', 'every repository of this user: ~/.copilot/hooks/ahp.json (the CLI)'],
          ...MINT,
          ...GATEWAY,
        ],
        run: async (_args, values, io) => (await import('./init-copilot.js')).initCopilot(values as InitValues, io),
      },
    },
  },
  doctor: {
    summary: 'check that an agent set up by "ahp init" is answered ("ahp doctor" checks Claude Code)',
    leaves: {
      'claude-code': {
        isDefault: true,
        summary: 'check the Claude Code set-up: gateway ready, token accepted, a dry-run hook answered',
        details: `Reaches the gateway (GET /readyz), then sends one dry-run PreToolUse (tool "AhpDoctor", in a
session of its own that it closes again) with the agent token and checks that the oracles, not
the failure policy, answered it. The gateway and the token come from --gateway / AHP_GATEWAY_URL
and AHP_TOKEN, else from the settings "ahp init claude-code" wrote. "ahp doctor" is short for
"ahp doctor claude-code". Exit 0 when all pass, 1 when a check fails, 3 when the gateway
cannot be reached.`,
        options: [['--user', "read the user's settings (~/.claude/settings.json) instead of the project's"], ...GATEWAY],
        run: async (_args, values, io) => (await import('./doctor-command.js')).doctor(values as DoctorValues, io),
      },
    },
  },
  shadow: {
    summary: 'the shadow hooks configuration: set, status, promote, drop (operator API)',
    leaves: {
      set: {
        args: ['<file>'],
        summary: 'make a hooks.yaml the shadow version: evaluated beside the live one, deciding nothing (operator API)',
        details: `The gateway validates the file exactly as a publish (issues printed as "file:line:column path:
message", exit code 1) and makes it the shadow: every worker evaluates it after each live decision
and records where the two differ (docs/hooks.md, "Shadow a configuration"). It replaces any current
shadow. Needs the admin role and a fleet-wide token; audited.

${OPERATOR_NOTE}`,
        options: GATEWAY,
        run: async ([file], values, io) => (await import('./shadow-commands.js')).shadowSet(file, values as ShadowValues, io),
      },
      status: {
        summary: 'the shadow version and where it disagrees with the live one (operator API)',
        details: `Hooks evaluated, disagreements and their rate, changes by transition (allow→block…), a table
per rule and the most recent disagreements. Any role. Exit code 1 when no shadow is set.

${OPERATOR_NOTE}`,
        options: GATEWAY,
        run: async (_args, values, io) => (await import('./shadow-commands.js')).shadowStatus(values as ShadowValues, io),
      },
      promote: {
        summary: 'publish the shadow as the next live version and stop shadowing it (operator API)',
        details: `Admin role, fleet-wide token; audited.

${OPERATOR_NOTE}`,
        options: [['--shadow <N>', 'only if shadow N is still the shadow (exit code 1 when another replaced it)'], ...GATEWAY],
        run: async (_args, values, io) => (await import('./shadow-commands.js')).shadowPromote(values as ShadowValues, io),
      },
      drop: {
        summary: 'stop shadowing (operator API)',
        details: `Admin role, fleet-wide token; audited.

${OPERATOR_NOTE}`,
        options: [['--shadow <N>', 'only if shadow N is still the shadow'], ...GATEWAY],
        run: async (_args, values, io) => (await import('./shadow-commands.js')).shadowDrop(values as ShadowValues, io),
      },
    },
  },
  agents: {
    summary: 'connected agents and their enforcement state (operator API)',
    leaves: {
      list: {
        summary: 'connected agents and live gateways (operator API)',
        details: `Lists every connected agent with its team, role, gateway and session, and counts the gateways.

${OPERATOR_NOTE}`,
        options: GATEWAY,
        run: async (_args, values, io) => (await import('./operator-commands.js')).agentsList(values as OperatorValues, io),
      },
      enforcement: {
        args: ['<id>'],
        summary: "an agent's breaker counts, unanswered block/control signals and escalation counters (operator API)",
        details: `What holds the agent back and survives its reconnects: the circuit breakers' counts
(identical tool calls, iterations), the block/control signals it has not answered, and its rules'
consecutive violations. Any role.

${OPERATOR_NOTE}`,
        options: GATEWAY,
        run: async ([id = ''], values, io) => (await import('./operator-commands.js')).agentsEnforcement(id, values as OperatorValues, io),
      },
      reset: {
        args: ['<id>'],
        summary: "lift an agent's enforcement state: breakers, hold, escalation counters (approver role)",
        details: `Resets the parts named with --parts, or all three, in one step, and prints what they held
before (docs/hooks.md, "Lifting an agent's enforcement state"). A new session never resets them, so
this is the way to let a stopped agent go on without waiting for the breakers' TTL. The agent is
told nothing; its next hook is admitted. Audited (agent.enforcement.reset). Exit code 1 when the
gateway refuses (unknown agent, role too low).

${OPERATOR_NOTE}`,
        options: [['--parts <LIST>', 'comma-separated: breakers, hold, escalation (default: all three)'], ...GATEWAY],
        run: async ([id = ''], values, io) => (await import('./operator-commands.js')).agentsReset(id, values as OperatorValues, io),
      },
    },
  },
  requests: {
    summary: 'list, approve and reject requests (operator API)',
    leaves: {
      list: {
        summary: 'requests, newest first (operator API)',
        details: OPERATOR_NOTE,
        options: [
          ['--status <S>', 'pending | approved | rejected | expired | cancelled'],
          ['--type <T>', 'plan_approval | tool_approval | shutdown | intervention'],
          ['--agent <ID>', 'sent by this agent'],
          ['--team <ID>', 'sent by an agent of this team'],
          ['--limit <N>', 'at most N requests (default 100)'],
          ...GATEWAY,
        ],
        run: async (_args, values, io) => (await import('./operator-commands.js')).requestsList(values as OperatorValues, io),
      },
      approve: {
        args: ['<id>'],
        summary: 'approve a pending request (approver role)',
        details: `Exit code 0 when the request is approved (now or already before), 1 when the gateway refuses
(unknown request, decided otherwise, role too low).

${OPERATOR_NOTE}`,
        options: [['--feedback <TEXT>', 'a note for the agent'], ...GATEWAY],
        run: async ([id = ''], values, io) => (await import('./operator-commands.js')).requestsDecide(id, true, values as OperatorValues, io),
      },
      reject: {
        args: ['<id>'],
        summary: 'reject a pending request, saying why (approver role)',
        details: `Exit codes as for approve; --feedback is required.

${OPERATOR_NOTE}`,
        options: [['--feedback <TEXT>', 'why, for the agent'], ...GATEWAY],
        run: async ([id = ''], values, io) => (await import('./operator-commands.js')).requestsDecide(id, false, values as OperatorValues, io),
      },
    },
  },
  tokens: {
    summary: 'mint agent and operator tokens',
    leaves: {
      agent: {
        args: ['<id>'],
        summary: 'mint an agent token and add it to the agent tokens file',
        details: `Prints the new token once (--json: with the id and file); the file keeps only its SHA-256.
Exit code 1 when the file is invalid or already has the id. Send SIGHUP to the gateways (or
restart them) afterwards so they load the new entry.`,
        options: [
          ['--file <PATH>', "the gateway's AHP_AGENT_TOKENS_FILE (created when missing)"],
          ['--name <NAME>', 'display name (required)'],
          ['--team <ID>', 'team of the agent'],
          ['--role <ROLE>', 'lead | teammate'],
          ['--environment <ID>', 'the environment the agent works in (e.g. production); rules read it as env and agent.environment, and the agent cannot change it'],
        ],
        // Loaded on use: @ahp/stack is only needed here, and every other command would pay for its import.
        run: async ([id = ''], values, io) => (await import('./token-commands.js')).tokensAgent(id, values as TokenValues, io),
      },
      operator: {
        args: ['<id>'],
        summary: 'mint an operator token and add it to the operator tokens file',
        details: `As "tokens agent", for the operator API. Without --teams and --request-types the token is
fleet-wide; with either it is scoped (docs/operator-api.md, "Scoped tokens"): it sees and decides
only its teams' agents and requests, decides only the request types named, and can neither publish
hooks.yaml nor read the audit trail, whatever its role.`,
        options: [
          ['--file <PATH>', "the gateway's AHP_OPERATOR_TOKENS_FILE (created when missing)"],
          ['--name <NAME>', 'display name (required)'],
          ['--role <ROLE>', 'viewer | approver | admin (required)'],
          ['--teams <ID,…>', 'scope the token to these teams'],
          ['--request-types <T,…>', 'scope what it may decide: shutdown, plan_approval, tool_approval, intervention'],
        ],
        run: async ([id = ''], values, io) => (await import('./token-commands.js')).tokensOperator(id, values as TokenValues, io),
      },
    },
  },
};

export const EXIT_CODES_HELP = `Exit codes: 0 ok, 1 invalid input or configuration, 2 usage error, 3 Redis unreachable.
Commands that call a gateway exit 1 when it refuses the call and 3 when it cannot be reached.`;

/** `--redis-url` → `redis-url` (commander keys values by camelCase; the command modules by the flag). */
export function byFlag(values: Record<string, unknown>): OptionValues {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`), value]));
}

/** `ahp config validate <file>`: a command's full usage path, for help and messages. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at !== null; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Prose as commander wraps it: lines joined into paragraphs (it would keep each line break and wrap again). */
function paragraphs(text: string): string {
  return text.replace(/([^\n])\n(?=\S)/g, '$1 ');
}

function addOptions(command: Command, options: readonly OptionDef[]): void {
  for (const [flags, description] of options) command.addOption(new Option(flags, description));
}

/** Every leaf command under `root`, depth first, in declaration order. */
export function leaves(root: Command): Command[] {
  return root.commands.flatMap((command) => (command.commands.length === 0 ? [command] : leaves(command)));
}

/** Where commander writes and how it reports a usage error: `ahp: <what>; see "<command> --help"`. */
function configureOutput(command: Command, io: CliIo): void {
  command.configureOutput({
    writeOut: (text) => void io.stdout.write(text),
    writeErr: (text) => void io.stderr.write(text),
    outputError: (text, write) => write(`ahp: ${text.replace(/^error: /, '').trimEnd().replace(/\.$/, '')}; see "${commandPath(command)} --help"\n`),
  });
  for (const child of command.commands) configureOutput(child, io);
}

/**
 * The `ahp` program for one run. `done` receives the exit code of the command that ran; usage
 * errors and help reach the caller as commander's errors (`exitOverride`).
 */
export function buildProgram(io: CliIo, done: (code: number) => void): Command {
  const program = new Command('ahp')
    .usage('<command> [options]')
    .description('The AHP command line: hooks configuration versions, the signal log, agents, requests and tokens.')
    .exitOverride()
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .helpCommand(false);
  addOptions(program, GLOBAL_OPTIONS);

  for (const [name, { summary }] of Object.entries(DELEGATED_COMMANDS)) {
    // Listed for help and completion; runCli hands the command line to the program before commander parses it.
    program
      .command(name)
      .summary(summary)
      .description(`${summary}. Every option after "${name}" is the program's own: "ahp ${name} --help".`)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(() => undefined);
  }
  for (const [groupName, group] of Object.entries(TREE)) {
    const groupCommand = program.command(groupName).summary(group.summary).description(group.summary).usage('<command> [options]').helpCommand(false);
    for (const [leafName, leaf] of Object.entries(group.leaves)) {
      const command = groupCommand.command(leafName, leaf.isDefault === true ? { isDefault: true } : {}).summary(leaf.summary);
      command.description(leaf.details === undefined ? `${leaf.summary}.` : `${leaf.summary}.\n\n${paragraphs(leaf.details)}`);
      for (const argument of leaf.args ?? []) command.argument(argument);
      addOptions(command, leaf.options ?? []);
      command.action(async (...params: unknown[]) => {
        const args = params.slice(0, (leaf.args ?? []).length) as (string | undefined)[];
        done(await leaf.run(args, byFlag(command.optsWithGlobals()), io));
      });
    }
  }
  program
    .command('completion')
    .summary('print the shell completion script: source <(ahp completion bash), or zsh')
    .description(`Prints a completion script for commands and options.
  bash: source <(ahp completion bash)       (or save it in /etc/bash_completion.d/ahp)
  zsh:  source <(ahp completion zsh)        (in ~/.zshrc)`)
    .addArgument(new Argument('[shell]', 'bash or zsh').choices(['bash', 'zsh']).default('bash'))
    .action((shell: 'bash' | 'zsh') => {
      io.stdout.write(shell === 'bash' ? bashCompletion(program) : zshCompletion(program));
      done(0);
    });

  const help = program.createHelp();
  const allLeaves = leaves(program).map((command) => {
      const args = command.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`)).join(' ');
      const usage = Object.hasOwn(DELEGATED_COMMANDS, command.name()) ? `${commandPath(command)} [options]` : `${commandPath(command)}${args === '' ? '' : ` ${args}`}`;
    return help.formatItem(usage, 30, command.summary(), help);
  });
  // The root lists every command with its arguments, not only the groups (set after the
  // subcommands were created: they copy the root's help settings at creation).
  program.configureHelp({ showGlobalOptions: true, sortSubcommands: false, visibleCommands: () => [] });
  program.addHelpText(
    'after',
    `
Commands:
${allLeaves.join('\n')}

${EXIT_CODES_HELP}
Run "ahp <command> --help" for a command's options ("ahp start --help", "ahp bench --help" included).`,
  );
  configureOutput(program, io);
  return program;
}
