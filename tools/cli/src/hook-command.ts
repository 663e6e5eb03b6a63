/**
 * `ahp hook claude-code`: Claude Code's `command` hook form, for setups without `http` hooks.
 * Reads the hook input on stdin, posts it to the gateway's Claude Code endpoint and prints the
 * answer on stdout.
 *
 * It never fails in a way Claude Code would read as "go ahead": a command hook that exits non-zero
 * (other than 2) or prints nothing is a non-blocking error there, i.e. the tool call runs. So when
 * the gateway cannot be asked, a PreToolUse gets an explicit deny (exit 0, JSON on stdout); other
 * events fail open with a `systemMessage`, as the protocol's default failure policy does for them.
 * Input that is not a hook at all exits 2, which Claude Code treats as a blocking error.
 */
// The subpath and the http module keep this command's imports to zod and one schema file: Claude
// Code starts it once per tool call, so what it loads is paid on every call (see hook-main.ts).
import { ClaudeCodeHookOutputSchema, type ClaudeCodeHookOutput } from '@ahp/protocol/claude-code-output';
import { CliError, EXIT, type CliIo } from './cli-errors.js';
import { requestGateway, tokenFrom, type GatewayValues } from './gateway-http.js';

/** Claude Code hook inputs carry tool inputs (whole files for Write); anything larger is not a hook. */
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * How long `ahp hook` waits for the gateway. Longer than the gateway's default
 * AHP_CLAUDE_CODE_DEADLINE_MS (8 s) so the gateway's own failure policy answers first, and
 * shorter than the hook `timeout` docs/claude-code.md recommends (15 s).
 * @defaultValue 10000
 */
export const HOOK_TIMEOUT_MS = 10_000;

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

/** The answer when the gateway could not be asked: deny a tool call, let anything else through with a notice. */
export function unreachableAnswer(event: unknown, cause: string): ClaudeCodeHookOutput {
  const reason = `AHP could not be asked (${cause}); denied because tool calls fail closed`;
  if (event === 'PreToolUse') return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
  return { systemMessage: `AHP could not be asked (${cause}); continuing without its checks` };
}

/** Runs the hook: exit 0 with an answer on stdout, or 2 for input that is not a Claude Code hook. */
export async function hookClaudeCode(values: GatewayValues, io: CliIo, stdin: AsyncIterable<Buffer | string> = process.stdin): Promise<number> {
  const text = await readAll(stdin);
  let input: unknown;
  try {
    input = JSON.parse(text) as unknown;
  } catch {
    throw new CliError(EXIT.usage, 'stdin is not JSON: expected the hook input Claude Code sends');
  }
  const event = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)['hook_event_name'] : undefined;
  let output: ClaudeCodeHookOutput;
  try {
    const answer = await requestGateway(io, values, tokenFrom(io, 'AHP_TOKEN'), 'POST', '/v1/hooks/claude-code', input, HOOK_TIMEOUT_MS);
    if (!answer.ok) throw new CliError(EXIT.invalid, `the gateway refused the hook (HTTP ${answer.status}${errorCode(answer.json)})`);
    const parsed = ClaudeCodeHookOutputSchema.safeParse(answer.json);
    if (!parsed.success) throw new CliError(EXIT.invalid, 'the gateway answered with something that is not a Claude Code hook output');
    output = parsed.data;
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    io.stderr.write(`ahp: ${cause}\n`);
    output = unreachableAnswer(event, cause);
  }
  io.stdout.write(`${JSON.stringify(output)}\n`);
  return EXIT.ok;
}
