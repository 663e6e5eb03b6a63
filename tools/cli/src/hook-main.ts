/**
 * The entry of `ahp hook claude-code` and `ahp hook codex` (bin/ahp.js routes those commands
 * here). The agent starts a command hook once per hook, so everything this file loads is paid on
 * every call: it imports the hook commands, node:http and the answers' zod/mini schemas, not the
 * Redis client, the rule engine or the rest of the protocol that the full CLI (cli.js) loads.
 *
 * Only the JSON answer goes to stdout (the agent parses it); diagnostics go to stderr. Anything
 * this entry does not recognise — `--help`, an unknown option — is handed to the full CLI, so the
 * messages and exit codes stay those of `ahp`.
 */
import { parseArgs } from 'node:util';
import { EXIT, CliError } from './cli-errors.js';
import { CLAUDE_CODE_COMMAND_HOOK } from './claude-code-hook.js';
import { CODEX_COMMAND_HOOK } from './codex-hook.js';
import { COPILOT_COMMAND_HOOK } from './copilot-hook.js';
import { HOOK_OPTIONS, runCommandHook, type CommandHookDialect, type HookValues } from './hook-command.js';

/** The command hooks this entry runs, by the agent named on the command line. */
const DIALECTS: Readonly<Record<string, CommandHookDialect>> = Object.freeze({
  'claude-code': CLAUDE_CODE_COMMAND_HOOK,
  codex: CODEX_COMMAND_HOOK,
  copilot: COPILOT_COMMAND_HOOK,
});

/** The options `ahp hook claude-code` takes, as the full CLI defines them (its global ones are accepted and ignored). */
const OPTIONS = {
  ...HOOK_OPTIONS,
  'redis-url': { type: 'string' },
  prefix: { type: 'string' },
  'connect-timeout': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The parsed options of a plain hook call, or undefined when the full CLI should handle the command line. */
export function plainHookCall(argv: readonly string[]): ({ agent: string; event: string | undefined } & HookValues) | undefined {
  try {
    const parsed = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true });
    const [command, agent, event] = parsed.positionals;
    const dialect = command === 'hook' && agent !== undefined && Object.hasOwn(DIALECTS, agent) ? DIALECTS[agent] : undefined;
    if (dialect === undefined || agent === undefined) return undefined;
    // Copilot's hook names its event (`ahp hook copilot preToolUse`); the others take none.
    if (parsed.positionals.length !== (dialect.eventOnCommandLine === true ? 3 : 2)) return undefined;
    return { agent, event, gateway: parsed.values.gateway, timeout: parsed.values.timeout, 'token-file': parsed.values['token-file'], wait: parsed.values.wait };
  } catch {
    return undefined;
  }
}

const values = plainHookCall(process.argv.slice(2));
if (values === undefined) {
  // The full CLI runs the command line itself and exits; its module is a sibling of this one
  // both here and in the packed package (never bundled into this entry).
  await import('./cli.js');
} else {
  let code: number;
  const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
  try {
    const dialect = DIALECTS[values.agent];
    // plainHookCall returns only agents it has a dialect for.
    code = dialect === undefined ? EXIT.usage : await runCommandHook(dialect, values, io, process.stdin, values.event);
  } catch (error) {
    // Only input that is not a hook gets here (exit 2: the agent blocks); never a gateway failure.
    const cliError = error instanceof CliError ? error : new CliError(EXIT.usage, error instanceof Error ? error.message : String(error));
    process.stderr.write(`ahp: ${cliError.message}\n`);
    code = cliError.exitCode;
  }
  process.exit(code);
}
