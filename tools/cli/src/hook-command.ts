/**
 * `ahp hook <agent>`: a coding agent's `command` hook (Claude Code, Codex). Reads the hook input
 * on stdin, posts it to the gateway's route for that agent and prints the answer on stdout —
 * nothing else goes to stdout, which the agent parses; diagnostics go to stderr.
 *
 * It never fails in a way the agent would read as "go ahead": a command hook that exits non-zero
 * (other than 2) or prints nothing is a non-blocking error there, i.e. the tool call runs. So when
 * the gateway cannot be asked, a tool call gets an explicit deny (exit 0, JSON on stdout); other
 * events fail open with a `systemMessage`, as the protocol's default failure policy does for them.
 * Input that is not a hook at all exits 2, which both agents treat as a blocking error (stderr
 * is the reason).
 */
// The subpaths and the http module keep this command's imports to zod/mini and the answers'
// schemas: the agent starts it once per hook, so what it loads is paid on every call (see hook-main.ts).
import { readFile } from 'node:fs/promises';
import { CliError, EXIT, type CliIo } from './cli-errors.js';
import { wholeNumber } from './cli-errors.js';
import { GATEWAY_OPTIONS, requestGateway, tokenFrom, type GatewayAnswer, type GatewayValues } from './gateway-http.js';

/**
 * Options of `ahp hook <agent>`: the gateway's, where the agent token is when not in AHP_TOKEN,
 * and how long a permission prompt may wait for an operator (`--wait MS`).
 */
export const HOOK_OPTIONS = { ...GATEWAY_OPTIONS, 'token-file': { type: 'string' }, wait: { type: 'string' } } as const;

/** Parsed {@link HOOK_OPTIONS}. */
export interface HookValues extends GatewayValues {
  'token-file'?: string | undefined;
  wait?: string | undefined;
}

/**
 * How long `ahp hook` lets the gateway hold an agent's permission prompt while an operator
 * decides (`--wait`; the gateway may hold it less, AHP_PERMISSION_WAIT_MS): the hook's HTTP wait
 * is this plus {@link HOOK_TIMEOUT_MS}, below the 60 s hook timeout `ahp init` writes for it.
 * @defaultValue 45000
 */
export const PERMISSION_WAIT_MS = 45_000;

/** Pause before a permission prompt is sent again after the gateway went away (it is held again, on any gateway). */
const RESEND_PAUSE_MS = 1000;

/**
 * The agent token: the first line of `--token-file` (written by `ahp init codex`: Codex has no
 * per-project environment to keep it in), else AHP_TOKEN.
 */
async function hookToken(values: HookValues, io: CliIo): Promise<string> {
  const file = values['token-file'];
  if (file === undefined) return tokenFrom(io, 'AHP_TOKEN');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(EXIT.invalid, `cannot read the token file ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const token = text.split('\n')[0]?.trim() ?? '';
  if (token === '') throw new CliError(EXIT.invalid, `the token file ${file} is empty`);
  return token;
}

/** Hook inputs carry tool inputs (whole files for Write); anything larger is not a hook. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * How long `ahp hook` waits for the gateway. Longer than the gateway's default
 * AHP_CLAUDE_CODE_DEADLINE_MS (8 s) so the gateway's own failure policy answers first, and
 * shorter than the hook `timeout` the docs recommend (15 s).
 * @defaultValue 10000
 */
export const HOOK_TIMEOUT_MS = 10_000;

/** A coding agent as its command hook needs it: where to post, and its answers. */
export interface CommandHookDialect {
  /** The agent's name in messages (`Codex`). */
  readonly agent: string;
  /** The gateway route its inputs go to. */
  readonly route: string;
  /**
   * Whether an input whose `hook_event_name` is not one the dialect maps exits 2 without asking
   * the gateway (fail closed: the agent blocks where the event can be blocked). Claude Code's
   * hook posts it anyway and answers from the gateway's 400, as it always did.
   */
  readonly refuseUnknownEvents: boolean;
  /** Whether `event` is one the dialect maps. */
  knows(event: unknown): boolean;
  /**
   * Set for an agent whose input does not name its event (Copilot's camelCase payloads): the
   * event comes from the command line (`ahp hook copilot preToolUse`) and is added to the body as
   * `hook_event_name`, first, where the gateway's bounded scan reads it.
   */
  readonly eventOnCommandLine?: boolean;
  /** The dialect's own name of an event named on the command line in another of the agent's formats. */
  canonicalEvent?(event: string): string;
  /** The event of the agent's permission prompt, whose hook the gateway may hold while an operator decides. */
  readonly permissionEvent: string;
  /** Events the agent reports that AHP does not evaluate: answered `{}` here, without asking the gateway. */
  readonly unevaluated?: readonly string[];
  /** The gateway's answer when it is one the agent reads for `event`; undefined otherwise. */
  checked(event: unknown, answer: unknown): unknown;
  /** The answer when the gateway could not be asked (or answered nonsense): deny a tool call, let anything else through with a notice. */
  unreachable(event: unknown, cause: string): unknown;
  /**
   * For an answer the agent obeys only as a blocking exit (status 2, the feedback on stderr): the
   * feedback; undefined for an answer it reads from stdout (Claude Code's agent-team events).
   */
  blockingExit?(event: unknown, output: unknown): string | undefined;
}

/** The exit status an agent reads as "blocked", with stderr as the feedback. */
export const BLOCKING_EXIT_STATUS = 2;

async function readAll(stdin: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > MAX_INPUT_BYTES) throw new CliError(EXIT.usage, `hook input larger than ${MAX_INPUT_BYTES} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `, E_UNAUTHORIZED` when a refusal body names a code; only for the message on stderr. */
function errorCode(json: unknown): string {
  const error = typeof json === 'object' && json !== null ? (json as Record<string, unknown>)['error'] : undefined;
  const code = typeof error === 'object' && error !== null ? (error as Record<string, unknown>)['code'] : undefined;
  return typeof code === 'string' ? `, ${code.slice(0, 64)}` : '';
}

/**
 * Runs the hook: exit 0 with an answer on stdout, or 2 for input that is not a hook of `dialect`'s
 * agent. `commandLineEvent` is the event named on the command line, for a dialect whose input does
 * not name it.
 */
export async function runCommandHook(
  dialect: CommandHookDialect,
  values: HookValues,
  io: CliIo,
  stdin: AsyncIterable<Buffer | string> = process.stdin,
  commandLineEvent?: string,
): Promise<number> {
  const text = await readAll(stdin);
  let input: unknown;
  try {
    input = JSON.parse(text) as unknown;
  } catch {
    throw new CliError(EXIT.usage, `stdin is not JSON: expected the hook input ${dialect.agent} sends`);
  }
  let event: unknown;
  if (dialect.eventOnCommandLine === true) {
    if (commandLineEvent === undefined) throw new CliError(EXIT.usage, `name the ${dialect.agent} event: ahp hook <agent> <event>`);
    const named = dialect.canonicalEvent?.(commandLineEvent) ?? commandLineEvent;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new CliError(EXIT.usage, `stdin is not a JSON object: expected the hook input ${dialect.agent} sends`);
    if (dialect.unevaluated?.includes(named) === true) {
      // Reported by the agent, evaluated by no trigger: no objection, and nothing else to say.
      io.stdout.write('{}\n');
      return EXIT.ok;
    }
    const { hook_event_name: _ignored, ...rest } = input as Record<string, unknown>;
    event = named;
    input = { hook_event_name: named, ...rest };
  } else {
    event = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)['hook_event_name'] : undefined;
  }
  if (dialect.refuseUnknownEvents && !dialect.knows(event)) {
    const name = typeof event === 'string' ? JSON.stringify(event.slice(0, 64)) : 'none';
    throw new CliError(EXIT.usage, `not a ${dialect.agent} hook event AHP maps (hook_event_name: ${name}); refused (fail closed)`);
  }
  let output: unknown;
  try {
    const token = await hookToken(values, io);
    const answer = event === dialect.permissionEvent ? await askHeld(dialect, values, io, token, input) : await requestGateway(io, values, token, 'POST', dialect.route, input, HOOK_TIMEOUT_MS);
    if (!answer.ok) throw new CliError(EXIT.invalid, `the gateway refused the hook (HTTP ${answer.status}${errorCode(answer.json)})`);
    output = dialect.checked(event, answer.json);
    if (output === undefined) throw new CliError(EXIT.invalid, `the gateway answered with something that is not a ${dialect.agent} hook output`);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    io.stderr.write(`ahp: ${cause}\n`);
    output = dialect.unreachable(event, cause);
  }
  const feedback = dialect.blockingExit?.(event, output);
  if (feedback !== undefined) {
    io.stderr.write(`${feedback}\n`);
    return BLOCKING_EXIT_STATUS;
  }
  io.stdout.write(`${JSON.stringify(output)}\n`);
  return EXIT.ok;
}

/**
 * Asks about a permission prompt, which the gateway may hold while an operator decides: the
 * wait goes in `X-AHP-Wait-Ms` and the HTTP wait is that much longer. When the gateway goes away
 * meanwhile (a crash: the connection fails or breaks off; a shutdown: it answers 503, having been
 * told by `X-AHP-Resend` that the prompt is sent again), the prompt is sent again while its time lasts; the request it waits for is in Redis, so any gateway holds it again and
 * delivers the decision.
 */
async function askHeld(dialect: CommandHookDialect, values: HookValues, io: CliIo, token: string, input: unknown): Promise<GatewayAnswer> {
  const waitMs = values.wait === undefined ? PERMISSION_WAIT_MS : wholeNumber('--wait', values.wait, 0);
  const until = Date.now() + waitMs;
  // Asked again only once a gateway held the prompt: one that is down from the start is answered at once.
  let held = false;
  for (;;) {
    const left = Math.max(0, until - Date.now());
    try {
      const answer = await requestGateway(io, values, token, 'POST', dialect.route, input, HOOK_TIMEOUT_MS, { 'x-ahp-wait-ms': String(left), 'x-ahp-resend': '1' }, left);
      // 503: the gateway shuts down and hands the prompt back; another one (or its restart) holds it again.
      if (answer.status !== 503 || until - Date.now() < RESEND_PAUSE_MS * 2) return answer;
      held = true;
      io.stderr.write('ahp: the gateway is shutting down; asking again\n');
      await new Promise((resolve) => setTimeout(resolve, RESEND_PAUSE_MS));
    } catch (error) {
      // Only a gateway that went away (exit 3) is asked again; anything else is final.
      if (!(error instanceof CliError) || error.exitCode !== EXIT.redis) throw error;
      const notReached = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/.test(error.message);
      held ||= !notReached;
      if (!held || until - Date.now() < RESEND_PAUSE_MS * 2) throw error;
      io.stderr.write(`ahp: ${error.message}; asking again\n`);
      await new Promise((resolve) => setTimeout(resolve, RESEND_PAUSE_MS));
    }
  }
}
