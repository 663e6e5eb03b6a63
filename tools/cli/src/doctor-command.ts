/**
 * `ahp doctor`: checks that Claude Code, set up by `ahp init claude-code`, will be answered:
 * 1. the gateway is reachable and ready (GET /readyz: Redis and the hook queue answer);
 * 2. the agent token is accepted, and
 * 3. a dry-run hook is answered by the oracles — a PreToolUse of a tool named `AhpDoctor` in a
 *    session of its own (`ahp-doctor-<random>`), closed with a SessionEnd afterwards. It is a real
 *    hook (it shows in the fleet and the signal log as such), because only a real one proves that
 *    workers decide: an answer from the failure policy (no worker in time) fails the check.
 * The gateway and the token come from --gateway / AHP_GATEWAY_URL and AHP_TOKEN, else from the
 * settings `ahp init` wrote (the project's, or with --user the user's).
 */
import { randomUUID } from 'node:crypto';
import { ClaudeCodeHookOutputSchema } from '@ahp/protocol';
import { EXIT, usageError, type CliIo, type GlobalValues } from './cli-support.js';
import { CLAUDE_CODE_ROUTE, gatewayOf } from './claude-code-settings.js';
import { gatewayUrl, requestGateway, type GatewayValues } from './gateway-http.js';
import { readSettings, settingsPaths } from './init-command.js';

/** Parsed options of `ahp doctor`. */
export interface DoctorValues extends GlobalValues, GatewayValues {
  user?: boolean | undefined;
}

/** Marks the reason of a failure-policy answer (claude-code-mapping.ts): no oracle decided. */
const FAILURE_POLICY_MARK = /\(fail-(closed|open)\)/;

/** Where the gateway and the token come from: the command line and environment first, then the settings files. */
async function resolveSetup(values: DoctorValues, io: CliIo): Promise<{ gateway: string; token: string; from: string }> {
  const paths = settingsPaths(values.user === true ? 'user' : 'project', io);
  const hookSettings = await readSettings(paths.hooks);
  const tokenSettings = paths.token === paths.hooks ? hookSettings : await readSettings(paths.token);
  const fromSettings = gatewayOf(hookSettings);
  const explicit = values.gateway ?? io.env['AHP_GATEWAY_URL'];
  if (explicit === undefined && fromSettings === undefined) throw usageError(`no gateway: pass --gateway URL, set AHP_GATEWAY_URL, or run "ahp init claude-code" first (no AHP hook in ${paths.hooks})`);
  const gateway = gatewayUrl({ gateway: explicit ?? fromSettings }, io);
  const envToken = io.env['AHP_TOKEN']?.trim();
  const token = envToken !== undefined && envToken !== '' ? envToken : (tokenSettings.env?.['AHP_TOKEN'] ?? hookSettings.env?.['AHP_TOKEN'] ?? '').trim();
  if (token === '') throw usageError(`no agent token: set AHP_TOKEN or run "ahp init claude-code" (no AHP_TOKEN in ${paths.token})`);
  const from = `${explicit === undefined ? paths.hooks : '--gateway / AHP_GATEWAY_URL'}; token from ${envToken ? 'AHP_TOKEN' : paths.token}`;
  return { gateway, token, from };
}

/** `ahp doctor`: exit 0 when every check passes, 1 when one fails, 3 when the gateway cannot be reached. */
export async function doctor(values: DoctorValues, io: CliIo): Promise<number> {
  const { gateway, token, from } = await resolveSetup(values, io);
  const say = (ok: boolean, line: string) => io.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${line}\n`);
  io.stdout.write(`Checking ${gateway} (${from})\n`);
  const call = { gateway, ...(values.timeout === undefined ? {} : { timeout: values.timeout }) };

  // 1. Reachable and ready.
  let ready;
  try {
    ready = await requestGateway(io, call, token, 'GET', '/readyz');
  } catch (error) {
    say(false, `the gateway cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.redis;
  }
  if (!ready.ok) {
    say(false, `the gateway is up but not ready (HTTP ${ready.status}): ${JSON.stringify(ready.json).slice(0, 300)}`);
    return EXIT.invalid;
  }
  say(true, 'the gateway is reachable and ready (Redis and the hook queue answer)');

  // 2 and 3. The token, and a dry-run hook answered by the oracles.
  const session = `ahp-doctor-${randomUUID()}`;
  const started = Date.now();
  const hook = { session_id: session, cwd: io.cwd, hook_event_name: 'PreToolUse', tool_name: 'AhpDoctor', tool_input: { check: 'dry run from ahp doctor; nothing runs' } };
  let answer;
  try {
    answer = await requestGateway(io, call, token, 'POST', CLAUDE_CODE_ROUTE, hook, 15_000);
  } catch (error) {
    say(false, `the dry-run hook got no answer: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.redis;
  }
  const elapsed = Date.now() - started;
  if (answer.status === 401) {
    say(false, 'the agent token was refused (401): unknown or revoked — or the gateways were not reloaded (SIGHUP) after it was minted');
    return EXIT.invalid;
  }
  if (!answer.ok) {
    say(false, `the dry-run hook was refused (HTTP ${answer.status}): ${JSON.stringify(answer.json).slice(0, 300)}`);
    return EXIT.invalid;
  }
  say(true, 'the agent token is accepted');
  const output = ClaudeCodeHookOutputSchema.safeParse(answer.json);
  if (!output.success) {
    say(false, 'the dry-run hook was answered with something that is not a Claude Code hook output');
    return EXIT.invalid;
  }
  const specific = output.data.hookSpecificOutput;
  const reason = specific?.permissionDecisionReason ?? output.data.reason ?? output.data.systemMessage ?? '';
  // Best effort: close the doctor's session so it leaves the fleet at once.
  await requestGateway(io, call, token, 'POST', CLAUDE_CODE_ROUTE, { session_id: session, hook_event_name: 'SessionEnd', reason: 'other' }, 5_000).catch(() => undefined);
  if (FAILURE_POLICY_MARK.test(reason)) {
    say(false, `the dry-run hook was answered by the failure policy, not by the oracles (are oracle workers running?): ${reason}`);
    return EXIT.invalid;
  }
  const verdict = specific?.permissionDecision ?? (output.data.decision === 'block' ? 'deny' : 'no objection');
  say(true, `a dry-run PreToolUse was answered by the oracles in ${elapsed} ms (${verdict}${reason === '' ? '' : `: ${reason.slice(0, 200)}`})`);
  io.stdout.write('Claude Code is set up: its hooks will be answered by AHP.\n');
  return EXIT.ok;
}
