/**
 * `ahp config replay <file> --since 24h`: evaluates a candidate hooks.yaml against the hooks the
 * workers recorded (docs/hooks.md, "Replay a candidate configuration") through the operator API —
 * submits the replay, shows its progress, prints the report. Ctrl-C cancels the replay.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ConfigReplayStatusSchema,
  HooksConfigIssueSchema,
  OperatorErrorBodySchema,
  hookToolCall,
  replayOutcomeOf,
  type ConfigReplayReport,
  type ConfigReplayStatus,
  type ReplayExample,
  type ReplayTransition,
} from '@ahp/protocol';
import { CliError, EXIT, invalidInput, printJson, table, usageError, wholeNumber, type CliIo, type GlobalValues } from './cli-support.js';
import { formatIssues } from './config-commands.js';
import { refusalDetail, tokenFrom, type GatewayValues } from './gateway-client.js';
import { requestGateway } from './gateway-http.js';
import { parseTimeOption } from './log-commands.js';
import { progressReporter } from './progress.js';

/** Parsed options of `ahp config replay`. */
export interface ReplayValues extends GlobalValues, GatewayValues {
  since?: string | undefined;
  until?: string | undefined;
  agent?: string | undefined;
  trigger?: string | undefined;
  limit?: string | undefined;
  poll?: string | undefined;
}

const PATH = '/v1/operator/config/replay';

function unexpected(what: string): CliError {
  return new CliError(EXIT.invalid, `the gateway's ${what} answer does not match this CLI's protocol version`);
}

const arrow = (t: Pick<ReplayTransition, 'from' | 'to'>) => `${t.from} → ${t.to}`;
const transitionsText = (list: readonly ReplayTransition[]) => list.map((t) => `${t.from}→${t.to} ${t.count}`).join(', ');

/** What a recorded call was, in a few words: `bash: git push --force` for a tool call, else the context's JSON, shortened. */
export function contextSummary(context: ReplayExample['context']): string {
  const call = hookToolCall(context);
  if (call === undefined) return clip(JSON.stringify(context), 80);
  const command = call.input['command'];
  return clip(`${call.name}: ${typeof command === 'string' ? command : JSON.stringify(call.input)}`, 80);
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The report for people: summary, transitions, rules, agents, examples, approvals, oracle errors. */
export function formatReplayReport(report: ConfigReplayReport, label: string): string {
  const out: string[] = [];
  out.push(`replay of ${label} over ${report.since} – ${report.until}`);
  const others = report.rules_changed === 0 ? '' : ` (${report.rules_changed} with other rules firing)`;
  out.push(`${report.total} hooks replayed: ${report.changed} would change, ${report.unchanged} unchanged${others}`);
  const skipped = report.skipped.oversize + report.skipped.unreadable;
  if (skipped > 0) out.push(`skipped: ${report.skipped.oversize} recorded without context (over the size cap), ${report.skipped.unreadable} unreadable`);
  if (report.truncated) out.push('stopped at --limit: the newest hooks of the window were not replayed');
  if (report.recorded_versions.length > 0) out.push(`recorded under: ${report.recorded_versions.map((v) => `${v.version === 'defaults' ? 'built-in defaults' : `version ${v.version}`} (${v.count})`).join(', ')}`);
  if (report.transitions.length > 0) {
    out.push('', table([['TRANSITION', 'HOOKS'], ...report.transitions.map((t) => [arrow(t), String(t.count)])]));
  }
  if (report.by_rule.length > 0) {
    out.push('', table([['RULE', 'CHANGED', 'TRANSITIONS'], ...report.by_rule.map((r) => [r.rule, String(r.changed), transitionsText(r.transitions)])]));
  }
  const changedAgents = report.by_agent.filter((a) => a.changed > 0);
  if (changedAgents.length > 0) {
    out.push('', table([['AGENT', 'HOOKS', 'CHANGED', 'TRANSITIONS'], ...changedAgents.map((a) => [a.agent_id, String(a.total), String(a.changed), transitionsText(a.transitions)])]));
  }
  const exampleRows = (list: readonly ReplayExample[]) =>
    list.map((e) => [e.at, e.agent_id, e.trigger, `${replayOutcomeOf(e.before)} → ${replayOutcomeOf(e.after)}`, (e.after.rules.length > 0 ? e.after.rules : e.before.rules).join(' '), contextSummary(e.context)]);
  if (report.examples.length > 0) {
    out.push('', `examples (${report.examples.length} of ${report.changed}):`, table([['AT', 'AGENT', 'TRIGGER', 'CHANGE', 'RULES', 'CALL'], ...exampleRows(report.examples)]));
  }
  if (report.approvals.count > 0) {
    out.push('', `${report.approvals.count} decisions would wait for a person's approval:`, table([['AT', 'AGENT', 'TRIGGER', 'CHANGE', 'RULES', 'CALL'], ...exampleRows(report.approvals.examples)]));
  }
  if (report.oracle_errors.length > 0) {
    out.push('', 'oracles of the candidate that did not answer:', table([['ORACLE', 'OUTCOME', 'HOOKS', 'FIRST ERROR'], ...report.oracle_errors.map((e) => [e.oracle, e.outcome, String(e.count), clip(e.message, 100)])]));
  }
  return `${out.join('\n')}\n`;
}

/** A 400 refusal with located issues (the candidate does not validate), printed like `ahp config validate`. */
function candidateIssues(json: unknown): { line: number; column: number; path: string; message: string }[] | undefined {
  const body = OperatorErrorBodySchema.safeParse(json);
  if (!body.success) return undefined;
  const issues = (body.data.error.details as { issues?: unknown } | undefined)?.issues;
  const parsed = HooksConfigIssueSchema.array().safeParse(issues);
  return parsed.success ? parsed.data : undefined;
}

export async function configReplay(file: string | undefined, values: ReplayValues, io: CliIo): Promise<number> {
  if (file === undefined) throw usageError('missing the candidate configuration file');
  if (values.since === undefined) throw usageError('--since is required, e.g. --since 24h');
  const now = Date.now();
  const since = parseTimeOption('--since', values.since, now);
  const until = values.until === undefined ? undefined : parseTimeOption('--until', values.until, now);
  const limit = values.limit === undefined ? undefined : wholeNumber('--limit', values.limit, 1, 100_000);
  const pollMs = values.poll === undefined ? 500 : wholeNumber('--poll', values.poll, 50, 60_000);
  const token = tokenFrom(io, 'AHP_OPERATOR_TOKEN');
  let source: string;
  try {
    source = await readFile(isAbsolute(file) ? file : resolve(io.cwd, file), 'utf8');
  } catch (error) {
    throw invalidInput(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error)}`);
  }

  const body = { source, since, ...(until === undefined ? {} : { until }), ...(values.agent === undefined ? {} : { agent: values.agent }), ...(values.trigger === undefined ? {} : { trigger: values.trigger }), ...(limit === undefined ? {} : { limit }) };
  const answer = await requestGateway(io, values, token, 'POST', PATH, body);
  if (!answer.ok) {
    const issues = answer.status === 400 ? candidateIssues(answer.json) : undefined;
    if (issues !== undefined) {
      if (values.json === true) printJson(io, { replayed: false, file, issues });
      else io.stdout.write(`${formatIssues(issues, file)}\n`);
      io.stderr.write(`${file}: not replayed (${issues.length} issue${issues.length === 1 ? '' : 's'})\n`);
      return EXIT.invalid;
    }
    throw new CliError(EXIT.invalid, `the gateway refused the replay (${refusalDetail(answer.status, answer.json)})`);
  }
  const submitted = ConfigReplayStatusSchema.safeParse(answer.json);
  if (!submitted.success) throw unexpected('replay');
  const id = submitted.data.id;
  io.stderr.write(`replay ${id} submitted\n`);

  // Ctrl-C: ask the gateway to cancel, then stop waiting.
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
  };
  process.once('SIGINT', onInterrupt);
  let status: ConfigReplayStatus = submitted.data;
  // Off a terminal, a line at every percent, as before the bar existed (scripts read them).
  const progress = progressReporter(io.stderr, `replay ${id}`, { lineStepPercent: 1 });
  try {
    while (status.state === 'waiting' || status.state === 'active') {
      if (interrupted) {
        progress.done();
        const cancelled = await requestGateway(io, values, token, 'DELETE', `${PATH}/${id}`);
        io.stderr.write(`replay ${id}: cancel asked (${cancelled.ok ? ConfigReplayStatusSchema.safeParse(cancelled.json).data?.state ?? 'unknown' : refusalDetail(cancelled.status, cancelled.json)})\n`);
        return 130;
      }
      await sleep(pollMs);
      const polled = await requestGateway(io, values, token, 'GET', `${PATH}/${id}`);
      if (!polled.ok) throw new CliError(EXIT.invalid, `the gateway refused the status call (${refusalDetail(polled.status, polled.json)})`);
      const parsed = ConfigReplayStatusSchema.safeParse(polled.json);
      if (!parsed.success) throw unexpected('replay status');
      status = parsed.data;
      if (status.state === 'active') progress.update(`of the window (${status.progress.read} hooks read)`, status.progress.fraction);
    }
  } finally {
    progress.done();
    process.removeListener('SIGINT', onInterrupt);
  }
  if (status.state !== 'completed' || status.report === undefined) {
    if (values.json === true) printJson(io, status);
    throw new CliError(EXIT.invalid, `replay ${id} ${status.state}${status.error === undefined ? '' : `: ${status.error}`}`);
  }
  if (values.json === true) printJson(io, status.report);
  else io.stdout.write(formatReplayReport(status.report, file));
  return EXIT.ok;
}
