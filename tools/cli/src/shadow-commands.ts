/**
 * `ahp shadow set|status|promote|drop`: the shadow hooks configuration (docs/hooks.md, "Shadow a
 * configuration") through the operator API, so the gateway checks the role and audits each
 * action. The operator token is read from AHP_OPERATOR_TOKEN.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  DropShadowResponseSchema,
  OperatorErrorBodySchema,
  PromoteShadowResponseSchema,
  SetShadowResponseSchema,
  ShadowStatusResponseSchema,
  type ShadowStatusResponse,
} from '@ahp/protocol';
import { CliError, EXIT, invalidInput, printJson, table, usageError, wholeNumber, type CliIo, type GlobalValues } from './cli-support.js';
import { callGateway, refusalDetail, tokenFrom, type GatewayValues } from './gateway-client.js';
import { requestGateway } from './gateway-http.js';

/** Parsed options of the shadow commands. */
export interface ShadowValues extends GlobalValues, GatewayValues {
  /** `--shadow N`: the shadow the caller means (promote, drop). */
  shadow?: string | undefined;
}

function unexpected(what: string): CliError {
  return new CliError(EXIT.invalid, `the gateway's ${what} answer does not match this CLI's protocol version`);
}

function expected(values: ShadowValues): number | undefined {
  return values.shadow === undefined ? undefined : wholeNumber('--shadow', values.shadow, 1);
}

/** `ahp shadow set <file>`: validated by the gateway as a publish; issues printed as `file:line:column path: message`. */
export async function shadowSet(file: string | undefined, values: ShadowValues, io: CliIo): Promise<number> {
  if (file === undefined) throw usageError('missing the configuration file, e.g. candidate.yaml');
  let source: string;
  try {
    source = await readFile(isAbsolute(file) ? file : resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw invalidInput(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : error instanceof Error ? error.message : String(error)}`);
  }
  const answer = await requestGateway(io, values, tokenFrom(io, 'AHP_OPERATOR_TOKEN'), 'POST', '/v1/operator/config/shadow', { source });
  if (!answer.ok) {
    const refused = OperatorErrorBodySchema.safeParse(answer.json);
    const issues = refused.success ? (refused.data.error.details?.['issues'] as { line?: number; column?: number; path?: string; message?: string }[] | undefined) : undefined;
    if (Array.isArray(issues)) for (const issue of issues) io.stderr.write(`${file}:${issue.line ?? 0}:${issue.column ?? 0} ${issue.path ?? ''}: ${issue.message ?? ''}\n`);
    throw new CliError(EXIT.invalid, `the gateway refused the shadow (${refusalDetail(answer.status, answer.json)})`);
  }
  const parsed = SetShadowResponseSchema.safeParse(answer.json);
  if (!parsed.success) throw unexpected('shadow');
  if (values.json === true) printJson(io, parsed.data);
  else {
    for (const warning of parsed.data.warnings) io.stderr.write(`${file}:${warning.line}:${warning.column} ${warning.path}: warning: ${warning.message}\n`);
    io.stdout.write(parsed.data.unchanged ? `unchanged: shadow ${parsed.data.shadow} already has this text\n` : `shadow ${parsed.data.shadow} set; workers evaluate it beside the live version\n`);
  }
  return EXIT.ok;
}

function transitions(map: Record<string, number>): string {
  const entries = Object.entries(map).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? '-' : entries.map(([t, n]) => `${t} ${n}`).join(', ');
}

function rate(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((part / whole) * 100).toFixed(1)}%`;
}

function printStatus(io: CliIo, status: ShadowStatusResponse): void {
  const live = status.live_version === null ? '' : `, live was version ${status.live_version}`;
  io.stdout.write(`shadow ${status.shadow} set by ${status.published_by} at ${status.published_at}${live}\n`);
  io.stdout.write(`${status.evaluated} hooks evaluated, ${status.disagreements} disagreements (${rate(status.disagreements, status.evaluated)}), ${status.errors} errors; ${transitions(status.transitions)}\n`);
  // The rate covers the hooks evaluated: say how many the busy workers did not shadow.
  if (status.skipped_busy > 0) io.stdout.write(`${status.skipped_busy} hooks not shadowed (${rate(status.skipped_busy, status.evaluated + status.skipped_busy)} of the traffic): every shadow slot of their worker was busy; the rate covers the others\n`);
  if (status.rules.length > 0) {
    const rows = status.rules.map((rule) => [rule.rule, String(rule.fired), String(rule.disagreements), rate(rule.disagreements, status.evaluated), transitions(rule.transitions)]);
    io.stdout.write(`\n${table([['RULE', 'FIRED', 'DISAGREE', 'RATE', 'CHANGES'], ...rows])}\n`);
  }
  if (status.examples.length > 0) {
    const rows = status.examples.map((example) => [example.at, example.agent_id, example.trigger, `${example.live}→${example.shadow}`, example.rules.join(',') || '-', example.hook_id]);
    io.stdout.write(`\n${table([['AT', 'AGENT', 'TRIGGER', 'LIVE→SHADOW', 'RULES', 'HOOK'], ...rows])}\n`);
  }
}

/** `ahp shadow status`: the shadow and its disagreements; exit 1 when none is set. */
export async function shadowStatus(values: ShadowValues, io: CliIo): Promise<number> {
  const parsed = ShadowStatusResponseSchema.safeParse(await callGateway(io, values, tokenFrom(io, 'AHP_OPERATOR_TOKEN'), 'GET', '/v1/operator/config/shadow'));
  if (!parsed.success) throw unexpected('shadow status');
  if (values.json === true) printJson(io, parsed.data);
  else printStatus(io, parsed.data);
  return EXIT.ok;
}

/** `ahp shadow promote [--shadow N]`: the shadow becomes the next live version. */
export async function shadowPromote(values: ShadowValues, io: CliIo): Promise<number> {
  const shadow = expected(values);
  const answer = await callGateway(io, values, tokenFrom(io, 'AHP_OPERATOR_TOKEN'), 'POST', '/v1/operator/config/shadow/promote', shadow === undefined ? {} : { shadow });
  const parsed = PromoteShadowResponseSchema.safeParse(answer);
  if (!parsed.success) throw unexpected('promote');
  if (values.json === true) printJson(io, parsed.data);
  else io.stdout.write(`shadow ${parsed.data.shadow} promoted: ${parsed.data.unchanged ? `its text was already version ${parsed.data.version}` : `published as version ${parsed.data.version}`}\n`);
  return EXIT.ok;
}

/** `ahp shadow drop [--shadow N]`: stop shadowing. */
export async function shadowDrop(values: ShadowValues, io: CliIo): Promise<number> {
  const shadow = expected(values);
  const answer = await callGateway(io, values, tokenFrom(io, 'AHP_OPERATOR_TOKEN'), 'DELETE', `/v1/operator/config/shadow${shadow === undefined ? '' : `?shadow=${shadow}`}`);
  const parsed = DropShadowResponseSchema.safeParse(answer);
  if (!parsed.success) throw unexpected('drop');
  if (values.json === true) printJson(io, parsed.data);
  else io.stdout.write(`shadow ${parsed.data.shadow} dropped\n`);
  return EXIT.ok;
}
