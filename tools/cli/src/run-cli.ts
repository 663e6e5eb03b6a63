/**
 * `ahp`: parses the command line, runs one command, and returns its exit code. In-process and
 * injectable (`CliIo`) so that the bin stays a two-line wrapper.
 */
import { parseArgs } from 'node:util';
import { CliError, EXIT, GLOBAL_HELP, GLOBAL_OPTIONS, type CliIo } from './cli-support.js';
import { DELEGATED_COMMANDS, runDelegated } from './delegated-commands.js';
import { configDiff, configHistory, configPublish, configShow, configValidate, type ConfigValues } from './config-commands.js';
import { REPLAY_OPTIONS, configReplay, type ReplayValues } from './config-replay-command.js';
import { GATEWAY_OPTIONS } from './gateway-client.js';
import { doctor, type DoctorValues } from './doctor-command.js';
import { hookClaudeCode } from './claude-code-hook.js';
import { hookCodex } from './codex-hook.js';
import { hookCopilot } from './copilot-hook.js';
import { HOOK_OPTIONS } from './hook-command.js';
import { initClaudeCode, type InitValues } from './init-command.js';
import { initCodex } from './init-codex.js';
import { initCopilot } from './init-copilot.js';
import { FILTER_HELP, FILTER_OPTIONS, logExport, logStats, type LogValues } from './log-commands.js';
import { agentsList, requestsDecide, requestsList, type OperatorValues } from './operator-commands.js';
import { shadowDrop, shadowPromote, shadowSet, shadowStatus, type ShadowValues } from './shadow-commands.js';
import type { TokenValues } from './token-commands.js';

export { EXIT, type CliIo } from './cli-support.js';

type OptionSpec = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;

interface Command {
  /** Positional arguments after the command's name, for the usage line. */
  args: string;
  summary: string;
  options: OptionSpec;
  help: string;
  /** How many positional arguments it takes. */
  positionals: number;
  /** `positionals` holds exactly {@link Command.positionals} entries (runCli checks the count first). */
  run(positionals: string[], values: Record<string, unknown>, io: CliIo): Promise<number>;
}

const PLUGINS_HELP = `  --plugins LIST   oracle plugin modules the workers load, comma-separated
                   (default: $AHP_ORACLE_PLUGINS), so oracle names resolve as they will there`;

const GATEWAY_HELP = `  --gateway URL    the gateway's HTTP address (default: $AHP_GATEWAY_URL)
  --timeout MS     give up waiting for the gateway after this long (exit code 3)`;

const OPERATOR_HELP = `${GATEWAY_HELP}

The operator token is read from $AHP_OPERATOR_TOKEN (see docs/operator-api.md for the roles).`;

const TOKEN_OPTIONS: OptionSpec = { name: { type: 'string' }, team: { type: 'string' }, role: { type: 'string' }, environment: { type: 'string' }, file: { type: 'string' } };
const OPERATOR_TOKEN_OPTIONS: OptionSpec = { name: { type: 'string' }, role: { type: 'string' }, file: { type: 'string' }, teams: { type: 'string' }, 'request-types': { type: 'string' } };

const COMMANDS: Record<string, Record<string, Command>> = {
  config: {
    validate: {
      args: '<file>',
      summary: 'check a hooks.yaml without publishing it (no Redis needed)',
      options: { plugins: { type: 'string' }, strict: { type: 'boolean' } },
      positionals: 1,
      help: `Checks the file as the workers would: YAML, schema, expressions, oracle names.
Prints each issue as "file:line:column path: message"; exit code 1 when there is any.
Then lints a valid file and prints each warning as "file:line:column path: warning: message":
a trigger that can never deny, a rule that reads a field its trigger never has, a rule
shadowed by an earlier one (docs/hooks.md, "Lint warnings"). Warnings leave the exit code 0.

Options:
  --strict         exit code 1 when there are warnings too (for CI)
${PLUGINS_HELP}`,
      run: ([file], values, io) => configValidate(file, values as ConfigValues, io),
    },
    publish: {
      args: '<file>',
      summary: 'validate a hooks.yaml and make it the current version for every worker',
      options: { by: { type: 'string' }, plugins: { type: 'string' } },
      positionals: 1,
      help: `Validates the file first (nothing is published when it has issues; exit code 1), then
stores it as the next version and tells every running worker, which switch to it without a
restart. Publishing the text of the current version again changes nothing ("unchanged").

Options:
  --by NAME        who publishes, recorded with the version (default: user@host)
${PLUGINS_HELP}`,
      run: ([file], values, io) => configPublish(file, values as ConfigValues, io),
    },
    diff: {
      args: '<file>',
      summary: 'unified diff from the current version to a file',
      options: { version: { type: 'string' } },
      positionals: 1,
      help: `Shows what publishing the file would change, as a unified diff of the texts.

Options:
  --version N      compare with version N instead of the current one`,
      run: ([file], values, io) => configDiff(file, values as ConfigValues, io),
    },
    show: {
      args: '',
      summary: 'print the text of the current version (or of --version N)',
      options: { version: { type: 'string' } },
      positionals: 0,
      help: `Prints the YAML of a version exactly as it was published (a header line on stderr says
which version); --json prints the whole stored version, parsed configuration included.

Options:
  --version N      this version instead of the current one`,
      run: (_args, values, io) => configShow(values as ConfigValues, io),
    },
    history: {
      args: '',
      summary: 'list published versions, newest first',
      options: { limit: { type: 'string' } },
      positionals: 0,
      help: `Lists versions with their time, publisher and digest; * marks the current one.

Options:
  --limit N        at most N versions (default 20)`,
      run: (_args, values, io) => configHistory(values as ConfigValues, io),
    },
    replay: {
      args: '<file>',
      summary: 'what a candidate hooks.yaml would have decided on recorded hooks (operator API)',
      options: { ...GATEWAY_OPTIONS, ...REPLAY_OPTIONS },
      positionals: 1,
      help: `Evaluates the candidate on the hooks the workers recorded in the window (docs/hooks.md,
"Replay a candidate configuration"), with the engine the workers run and escalation counters
simulated per agent, and prints what would change: how many decisions, from what to what
(allow → block, control → block, …), per rule and per agent, with examples; decisions that would
wait for an approval; oracles of the candidate that fail. Nothing is published. The replay runs
on the oracle workers as a job; its progress goes to stderr, and Ctrl-C cancels it.
A candidate that does not validate is printed as "file:line:column path: message" (exit code 1).

Options:
  --since T        replay hooks recorded at or after T (required): an ISO 8601 time, a date,
                   or a duration back from now (90s, 15m, 2h, 7d)
  --until T        and before T (default: now)
  --agent ID       only this agent's hooks
  --trigger T      only hooks of this trigger, e.g. pre-tool-use
  --limit N        at most N hooks, the oldest of the window first (default 10000, at most 100000)
  --poll MS        how often to ask for progress (default 500)
${OPERATOR_HELP}`,
      run: ([file], values, io) => configReplay(file, values as ReplayValues, io),
    },
  },
  log: {
    export: {
      args: '',
      summary: 'write the signal log as JSONL, one line per signal with its response',
      options: { ...FILTER_OPTIONS, limit: { type: 'string' }, out: { type: 'string' } },
      positionals: 0,
      help: `Each line carries the fields of docs/spec/signal-log.md#signal-log-lines (timestamp, hook, intensity, source, consumed,
action) and signal_id, type, rule, config_version, agent_id, session_id, correlation_id,
latency_ms, stages (gateway_ms, queue_ms, worker_ms) and responded_at (see docs/signal-log.md). Oldest first. A count of lines goes to stderr.

${FILTER_HELP}

Options:
  --limit N        at most N lines (the oldest that match)
  --out FILE       write to FILE instead of stdout`,
      run: (_args, values, io) => logExport(values as LogValues, io),
    },
    stats: {
      args: '',
      summary: 'statistics per hook, oracle, intensity, action, rule and version',
      options: { ...FILTER_OPTIONS },
      positionals: 0,
      help: `How often each intensity was sent and how agents answered it (e.g. the share of blocks
followed by retry_after_fix and by abort), per hook, oracle, rule and configuration version, and
the decision latency.

${FILTER_HELP}`,
      run: (_args, values, io) => logStats(values as LogValues, io),
    },
  },
  hook: {
    'claude-code': {
      args: '',
      summary: "Claude Code's command hook: hook input on stdin, the answer on stdout",
      options: { ...GATEWAY_OPTIONS, wait: HOOK_OPTIONS.wait },
      positionals: 0,
      help: `Posts the hook input Claude Code writes on stdin to the gateway's /v1/hooks/claude-code with
the agent token from $AHP_TOKEN, and prints the gateway's answer. Always exits 0 with a JSON
answer: when the gateway cannot be asked, a PreToolUse is denied explicitly (tool calls fail
closed) and other events go on with a systemMessage. Input that is not JSON exits 2, which
Claude Code treats as a blocking error. A PermissionRequest waiting for an operator's approval
is held by the gateway until the operator decides, or its fallback answers. See
docs/claude-code.md.

Options:
  --wait MS          how long a permission prompt may wait for an operator's decision
                     (default 45000; the gateway may hold it less, AHP_PERMISSION_WAIT_MS);
                     the answer is awaited that much longer, and asked again of any gateway
                     if the connection is lost meanwhile
${GATEWAY_HELP} (default 10000)`,
      run: (_args, values, io) => hookClaudeCode(values, io),
    },
    codex: {
      args: '',
      summary: "OpenAI Codex's command hook: hook input on stdin, the answer on stdout",
      options: { ...HOOK_OPTIONS },
      positionals: 0,
      help: `Posts the hook input Codex writes on stdin to the gateway's /v1/hooks/codex with the agent
token from $AHP_TOKEN, and prints the gateway's answer, checked against Codex's output schema of
the event. Exits 0 with a JSON answer: when the gateway cannot be asked, a PreToolUse or a
PermissionRequest is denied explicitly (tool calls fail closed) and other events go on with a
systemMessage. Input that is not JSON, or an event AHP does not map, exits 2 with the reason on
stderr, which Codex treats as a blocking error. See docs/coding-agents.md.

Options:
  --token-file PATH  read the agent token from this file (as "ahp init codex" writes it)
                     instead of $AHP_TOKEN
  --wait MS          how long a permission prompt may wait for an operator's decision
                     (default 45000; the gateway may hold it less, AHP_PERMISSION_WAIT_MS);
                     the answer is awaited that much longer, and asked again of any gateway
                     if the connection is lost meanwhile
${GATEWAY_HELP} (default 10000)`,
      run: (_args, values, io) => hookCodex(values, io),
    },
    copilot: {
      args: '<event>',
      summary: "GitHub Copilot's command hook (CLI and cloud agent): hook input on stdin, the answer on stdout",
      options: { ...HOOK_OPTIONS },
      positionals: 1,
      help: `Posts the hook input Copilot writes on stdin, with <event> (the camelCase event of the hooks
file: preToolUse, permissionRequest, agentStop, …) as its hook_event_name, to the gateway's
/v1/hooks/copilot with the agent token from $AHP_TOKEN, and prints the gateway's answer,
checked against Copilot's output of the event. Exits 0 with a JSON answer: when the gateway
cannot be asked, a preToolUse or a permissionRequest is denied explicitly (tool calls fail
closed) and other events get {}. errorOccurred, subagentStart and notification are answered {}
without asking (no trigger evaluates them). Input that is not a JSON object, or an event AHP
does not know, exits 2 with the reason on stderr. See docs/coding-agents.md.

Options:
  --token-file PATH  read the agent token from this file instead of $AHP_TOKEN
  --wait MS          how long a permission prompt may wait for an operator's decision
                     (default 45000; the gateway may hold it less, AHP_PERMISSION_WAIT_MS);
                     the answer is awaited that much longer, and asked again of any gateway
                     if the connection is lost meanwhile
${GATEWAY_HELP} (default 10000)`,
      run: (args, values, io) => hookCopilot(args[0], values, io),
    },
  },
  init: {
    'claude-code': {
      args: '',
      summary: 'set Claude Code up to ask AHP: token, hooks in .claude/settings.json, merged',
      options: {
        ...GATEWAY_OPTIONS,
        project: { type: 'boolean' },
        user: { type: 'boolean' },
        command: { type: 'boolean' },
        token: { type: 'string' },
        agent: { type: 'string' },
        name: { type: 'string' },
        team: { type: 'string' },
        role: { type: 'string' },
        environment: { type: 'string' },
        file: { type: 'string' },
      },
      positionals: 0,
      help: `Writes the AHP hooks of every Claude Code event the gateway maps (PreToolUse, PostToolUse,
UserPromptSubmit, Stop, SubagentStop, SessionStart, SessionEnd, PreCompact, PermissionRequest) into the settings
file, merged with what is there: other hooks and settings stay, the AHP hooks of an earlier run
are replaced, so running it again changes nothing. The agent token goes into the env of the
personal settings (.claude/settings.local.json; with --user, ~/.claude/settings.json), never
into the shared project file. Then run "ahp doctor". See docs/claude-code.md.

Options:
  --project        this project: .claude/settings.json in the current folder (default)
  --user           every project of this user: ~/.claude/settings.json
  --command        command hooks (ahp hook claude-code) instead of HTTP hooks
  --token TOKEN    the agent token to use (one you were given)
  --file PATH      or mint one into the gateway's agent tokens file (AHP_AGENT_TOKENS_FILE) …
  --agent ID       … for this agent id (with --name, --team, --role, --environment as in
                   "ahp tokens agent"); then reload the gateways (SIGHUP)
${GATEWAY_HELP}`,
      run: (_args, values, io) => initClaudeCode(values as InitValues, io),
    },
    codex: {
      args: '',
      summary: 'set OpenAI Codex up to ask AHP: token, command hooks in .codex/hooks.json, merged',
      options: {
        ...GATEWAY_OPTIONS,
        project: { type: 'boolean' },
        user: { type: 'boolean' },
        token: { type: 'string' },
        agent: { type: 'string' },
        name: { type: 'string' },
        team: { type: 'string' },
        role: { type: 'string' },
        environment: { type: 'string' },
        file: { type: 'string' },
      },
      positionals: 0,
      help: `Writes the command hook "ahp hook codex" for every Codex event the gateway maps (SessionStart,
PreToolUse, PermissionRequest, PostToolUse, UserPromptSubmit, Stop, PreCompact, PostCompact) into
Codex's hooks.json, merged with what is there: other hooks stay, the AHP hooks of an earlier run
are replaced, so running it again changes nothing. The agent token goes into .codex/ahp-token
(mode 0600, listed in .codex/.gitignore), which the hooks read with --token-file. Then trust the
new hooks in Codex (/hooks). See docs/coding-agents.md.

Options:
  --project        this project: .codex/hooks.json in the current folder (default)
  --user           every project of this user: ~/.codex/hooks.json
  --token TOKEN    the agent token to use (one you were given)
  --file PATH      or mint one into the gateway's agent tokens file (AHP_AGENT_TOKENS_FILE) …
  --agent ID       … for this agent id (with --name, --team, --role, --environment as in
                   "ahp tokens agent"); then reload the gateways (SIGHUP)
${GATEWAY_HELP}`,
      run: (_args, values, io) => initCodex(values as InitValues, io),
    },
    copilot: {
      args: '',
      summary: 'set GitHub Copilot (CLI, cloud agent) up to ask AHP: command hooks in .github/hooks/ahp.json, merged',
      options: {
        ...GATEWAY_OPTIONS,
        project: { type: 'boolean' },
        user: { type: 'boolean' },
        token: { type: 'string' },
        agent: { type: 'string' },
        name: { type: 'string' },
        team: { type: 'string' },
        role: { type: 'string' },
        environment: { type: 'string' },
        file: { type: 'string' },
      },
      positionals: 0,
      help: `Writes the command hook "ahp hook copilot <event>" for every Copilot event the gateway evaluates
(sessionStart, sessionEnd, userPromptSubmitted, preToolUse, permissionRequest, postToolUse,
postToolUseFailure, agentStop, subagentStop, preCompact) into a hooks file of its own, merged
with what that file holds: other handlers stay, the AHP ones of an earlier run are replaced.
A repository's hooks read the agent token from AHP_TOKEN (your environment for the CLI, a secret
of the repository's "copilot" environment for the cloud agent). See docs/coding-agents.md.

Options:
  --project        this repository: .github/hooks/ahp.json (default; the CLI and the cloud agent)
  --user           every repository of this user: ~/.copilot/hooks/ahp.json (the CLI)
  --token TOKEN    with --user: the agent token, kept in ~/.copilot/ahp-token (mode 0600)
  --file PATH      with --user: or mint one into the gateway's agent tokens file …
  --agent ID       … for this agent id (with --name, --team, --role, --environment)
${GATEWAY_HELP}`,
      run: (_args, values, io) => initCopilot(values as InitValues, io),
    },
  },
  doctor: {
    'claude-code': {
      args: '',
      summary: 'check the Claude Code set-up: gateway ready, token accepted, a dry-run hook answered',
      options: { ...GATEWAY_OPTIONS, user: { type: 'boolean' } },
      positionals: 0,
      help: `Reaches the gateway (GET /readyz), then sends one dry-run PreToolUse (tool "AhpDoctor", in a
session of its own that it closes again) with the agent token and checks that the oracles, not
the failure policy, answered it. The gateway and the token come from --gateway / AHP_GATEWAY_URL
and AHP_TOKEN, else from the settings "ahp init claude-code" wrote. "ahp doctor" is short for
"ahp doctor claude-code". Exit 0 when all pass, 1 when a check fails, 3 when the gateway
cannot be reached.

Options:
  --user           read the user's settings (~/.claude/settings.json) instead of the project's
${GATEWAY_HELP}`,
      run: (_args, values, io) => doctor(values as DoctorValues, io),
    },
  },
  shadow: {
    set: {
      args: '<file>',
      summary: 'make a hooks.yaml the shadow version: evaluated beside the live one, deciding nothing (operator API)',
      options: { ...GATEWAY_OPTIONS },
      positionals: 1,
      help: `The gateway validates the file exactly as a publish (issues printed as "file:line:column path:
message", exit code 1) and makes it the shadow: every worker evaluates it after each live decision
and records where the two differ (docs/hooks.md, "Shadow a configuration"). It replaces any current
shadow. Needs the admin role and a fleet-wide token; audited.

Options:
${OPERATOR_HELP}`,
      run: ([file], values, io) => shadowSet(file, values as ShadowValues, io),
    },
    status: {
      args: '',
      summary: 'the shadow version and where it disagrees with the live one (operator API)',
      options: { ...GATEWAY_OPTIONS },
      positionals: 0,
      help: `Hooks evaluated, disagreements and their rate, changes by transition (allow→block…), a table
per rule and the most recent disagreements. Any role. Exit code 1 when no shadow is set.

Options:
${OPERATOR_HELP}`,
      run: (_args, values, io) => shadowStatus(values as ShadowValues, io),
    },
    promote: {
      args: '',
      summary: 'publish the shadow as the next live version and stop shadowing it (operator API)',
      options: { ...GATEWAY_OPTIONS, shadow: { type: 'string' } },
      positionals: 0,
      help: `Admin role, fleet-wide token; audited.

Options:
  --shadow N       only if shadow N is still the shadow (exit code 1 when another replaced it)
${OPERATOR_HELP}`,
      run: (_args, values, io) => shadowPromote(values as ShadowValues, io),
    },
    drop: {
      args: '',
      summary: 'stop shadowing (operator API)',
      options: { ...GATEWAY_OPTIONS, shadow: { type: 'string' } },
      positionals: 0,
      help: `Admin role, fleet-wide token; audited.

Options:
  --shadow N       only if shadow N is still the shadow
${OPERATOR_HELP}`,
      run: (_args, values, io) => shadowDrop(values as ShadowValues, io),
    },
  },
  agents: {
    list: {
      args: '',
      summary: 'connected agents and live gateways (operator API)',
      options: { ...GATEWAY_OPTIONS },
      positionals: 0,
      help: `Lists every connected agent with its team, role, gateway and session, and counts the gateways.

Options:
${OPERATOR_HELP}`,
      run: (_args, values, io) => agentsList(values as OperatorValues, io),
    },
  },
  requests: {
    list: {
      args: '',
      summary: 'requests, newest first (operator API)',
      options: { ...GATEWAY_OPTIONS, status: { type: 'string' }, type: { type: 'string' }, agent: { type: 'string' }, team: { type: 'string' }, limit: { type: 'string' } },
      positionals: 0,
      help: `Options:
  --status S       pending | approved | rejected | expired | cancelled
  --type T         plan_approval | tool_approval | shutdown | intervention
  --agent ID       sent by this agent
  --team ID        sent by an agent of this team
  --limit N        at most N requests (default 100)
${OPERATOR_HELP}`,
      run: (_args, values, io) => requestsList(values as OperatorValues, io),
    },
    approve: {
      args: '<id>',
      summary: 'approve a pending request (approver role)',
      options: { ...GATEWAY_OPTIONS, feedback: { type: 'string' } },
      positionals: 1,
      help: `Exit code 0 when the request is approved (now or already before), 1 when the gateway refuses
(unknown request, decided otherwise, role too low).

Options:
  --feedback TEXT  a note for the agent
${OPERATOR_HELP}`,
      run: ([id = ''], values, io) => requestsDecide(id, true, values as OperatorValues, io),
    },
    reject: {
      args: '<id>',
      summary: 'reject a pending request, saying why (approver role)',
      options: { ...GATEWAY_OPTIONS, feedback: { type: 'string' } },
      positionals: 1,
      help: `Exit codes as for approve; --feedback is required.

Options:
  --feedback TEXT  why, for the agent
${OPERATOR_HELP}`,
      run: ([id = ''], values, io) => requestsDecide(id, false, values as OperatorValues, io),
    },
  },
  tokens: {
    agent: {
      args: '<id>',
      summary: 'mint an agent token and add it to the agent tokens file',
      options: TOKEN_OPTIONS,
      positionals: 1,
      help: `Prints the new token once (--json: with the id and file); the file keeps only its SHA-256.
Exit code 1 when the file is invalid or already has the id. Send SIGHUP to the gateways (or
restart them) afterwards so they load the new entry.

Options:
  --file PATH      the gateway's AHP_AGENT_TOKENS_FILE (created when missing)
  --name NAME      display name (required)
  --team ID        team of the agent
  --role ROLE      lead | teammate
  --environment ID the environment the agent works in (e.g. production); rules read it as
                   env and agent.environment, and the agent cannot change it`,
      // Loaded on use: @ahp/stack is only needed here, and every other command would pay for its import.
      run: async ([id = ''], values, io) => (await import('./token-commands.js')).tokensAgent(id, values as TokenValues, io),
    },
    operator: {
      args: '<id>',
      summary: 'mint an operator token and add it to the operator tokens file',
      options: OPERATOR_TOKEN_OPTIONS,
      positionals: 1,
      help: `As "tokens agent", for the operator API. Without --teams and --request-types the token is
fleet-wide; with either it is scoped (docs/operator-api.md, "Scoped tokens"): it sees and decides
only its teams' agents and requests, decides only the request types named, and can neither publish
hooks.yaml nor read the audit trail, whatever its role.

Options:
  --file PATH              the gateway's AHP_OPERATOR_TOKENS_FILE (created when missing)
  --name NAME              display name (required)
  --role ROLE              viewer | approver | admin (required)
  --teams ID[,ID…]         scope the token to these teams
  --request-types T[,T…]   scope what it may decide: shutdown, plan_approval, tool_approval, intervention`,
      run: async ([id = ''], values, io) => (await import('./token-commands.js')).tokensOperator(id, values as TokenValues, io),
    },
  },
};

const GROUP_SUMMARY: Record<string, string> = {
  config: 'the hooks configuration: validate, publish, inspect and replay versions',
  log: 'the signal log: export and statistics',
  hook: 'agent hooks answered by the control plane (Claude Code, Codex and Copilot command hooks)',
  init: 'set an agent up to ask AHP (Claude Code, Codex, Copilot)',
  doctor: 'check that an agent set up by "ahp init" is answered',
  shadow: 'the shadow hooks configuration: set, status, promote, drop (operator API)',
  agents: 'connected agents (operator API)',
  requests: 'list, approve and reject requests (operator API)',
  tokens: 'mint agent and operator tokens',
};

function mainHelp(): string {
  const lines = [
    ...Object.entries(DELEGATED_COMMANDS).map(([name, { summary }]) => `  ahp ${name} [options]`.padEnd(34) + summary),
    ...Object.entries(COMMANDS).flatMap(([group, commands]) =>
      Object.entries(commands).map(([name, command]) => `  ahp ${group} ${name}${command.args === '' ? '' : ` ${command.args}`}`.padEnd(34) + command.summary),
    ),
  ];
  return `Usage: ahp <command> [options]

The AHP command line: hooks configuration versions, the signal log, agents, requests and tokens.

Commands:
${lines.join('\n')}

${GLOBAL_HELP}

Exit codes: 0 ok, 1 invalid input or configuration, 2 usage error, 3 Redis unreachable.
Commands that call a gateway exit 1 when it refuses the call and 3 when it cannot be reached.
Run "ahp <command> --help" for a command's options ("ahp start --help", "ahp bench --help" included).
`;
}

function groupHelp(group: string): string {
  const commands = COMMANDS[group] ?? {};
  const lines = Object.entries(commands).map(([name, command]) => `  ahp ${group} ${name}${command.args === '' ? '' : ` ${command.args}`}`.padEnd(34) + command.summary);
  return `Usage: ahp ${group} <command> [options]

${GROUP_SUMMARY[group] ?? ''}

Commands:
${lines.join('\n')}

${GLOBAL_HELP}
`;
}

function commandHelp(group: string, name: string, command: Command): string {
  return `Usage: ahp ${group} ${name}${command.args === '' ? '' : ` ${command.args}`} [options]

${command.summary}.

${command.help}

${GLOBAL_HELP}
`;
}

/** Every option any command knows, so that a first loose pass finds the command words whatever the order. */
function allOptions(): OptionSpec {
  const all: OptionSpec = { ...GLOBAL_OPTIONS };
  for (const commands of Object.values(COMMANDS)) for (const command of Object.values(commands)) Object.assign(all, command.options);
  return all;
}

/** Runs `ahp` with `argv` (without node and the script) and returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  // Whole programs of their own: everything after the word is theirs, --help included.
  if (first !== undefined && Object.hasOwn(DELEGATED_COMMANDS, first)) return runDelegated(first, rest, io);
  try {
    let loose;
    try {
      loose = parseArgs({ args: [...argv], options: allOptions(), strict: false, allowPositionals: true });
    } catch (error) {
      throw new CliError(EXIT.usage, error instanceof Error ? error.message : String(error));
    }
    const [group, named] = loose.positionals;
    // `ahp doctor` alone checks Claude Code, the one client it knows.
    const name = group === 'doctor' && named === undefined && !(loose.values['help'] === true) ? 'claude-code' : named;
    const wantsHelp = loose.values['help'] === true;
    if (group === undefined) {
      (wantsHelp ? io.stdout : io.stderr).write(mainHelp());
      return wantsHelp ? EXIT.ok : EXIT.usage;
    }
    const commands = COMMANDS[group];
    if (commands === undefined) throw new CliError(EXIT.usage, `unknown command "${group}" (commands: ${Object.keys(COMMANDS).join(', ')}); see ahp --help`);
    if (name === undefined) {
      (wantsHelp ? io.stdout : io.stderr).write(groupHelp(group));
      return wantsHelp ? EXIT.ok : EXIT.usage;
    }
    const command = commands[name];
    if (command === undefined) {
      throw new CliError(EXIT.usage, `unknown command "${group} ${name}" (${group} commands: ${Object.keys(commands).join(', ')}); see ahp ${group} --help`);
    }
    if (wantsHelp) {
      io.stdout.write(commandHelp(group, name, command));
      return EXIT.ok;
    }
    let strict;
    try {
      strict = parseArgs({ args: [...argv], options: { ...GLOBAL_OPTIONS, ...command.options }, strict: true, allowPositionals: true });
    } catch (error) {
      throw new CliError(EXIT.usage, `${error instanceof Error ? error.message.replace(/\. To specify a positional.*$/s, '') : String(error)}; see ahp ${group} ${name} --help`);
    }
    const args = strict.positionals.slice(named === undefined ? 1 : 2);
    if (args.length > command.positionals) throw new CliError(EXIT.usage, `unexpected argument "${args[command.positionals]}"; see ahp ${group} ${name} --help`);
    if (args.length < command.positionals) throw new CliError(EXIT.usage, `missing ${command.args}; see ahp ${group} ${name} --help`);
    return await command.run(args, strict.values, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.stderr.write(`ahp: ${error.message}\n`);
      return error.exitCode;
    }
    // A Redis error after connecting (the connection dropped, a server error).
    const message = error instanceof Error ? error.message : String(error);
    if (/socket|connection|ECONNREFUSED|ECONNRESET|closed|ClientClosed/i.test(`${(error as Error)?.name ?? ''} ${message}`)) {
      io.stderr.write(`ahp: lost the connection to Redis: ${message}\n`);
      return EXIT.redis;
    }
    io.stderr.write(`ahp: ${message}\n`);
    return EXIT.invalid;
  }
}
