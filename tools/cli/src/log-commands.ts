/**
 * `ahp log export|stats`: the signal log as JSONL (docs/spec/signal-log.md#signal-log-lines) and statistics over it.
 */
import { writeFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import {
  INTENSITIES,
  SignalLogFilterSchema,
  actionsForIntensity,
  type SignalLogFilter,
  type SignalLogGroupStats,
  type SignalLogStats,
} from '@ahp/protocol';
import { exportSignalLog, readSignalLogStats, toJsonl } from '@ahp/store';
import { progressReporter } from './progress.js';
import { EXIT, connectDeployment, invalidInput, percent, printJson, table, usageError, wholeNumber, type CliIo, type Deployment, type GlobalValues } from './cli-support.js';

/** The values of the options of the log commands. */
export interface LogValues extends GlobalValues {
  since?: string | undefined;
  until?: string | undefined;
  agent?: string | undefined;
  session?: string | undefined;
  hook?: string | undefined;
  intensity?: string | undefined;
  source?: string | undefined;
  limit?: string | undefined;
  out?: string | undefined;
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A `--since`/`--until` value as an ISO timestamp: ISO time, date, or a duration back from `now`. */
export function parseTimeOption(name: string, value: string, now: number): string {
  const relative = /^(\d{1,9})([smhd])$/.exec(value.trim());
  if (relative) return new Date(now - Number(relative[1]) * (UNIT_MS[relative[2] ?? ''] ?? 0)).toISOString();
  if (/^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(value.trim())) {
    const trimmed = value.trim();
    // A time without zone is taken as UTC, like a bare date, so the result does not depend on the machine.
    const zoned = trimmed.length > 10 && !/(?:Z|[+-]\d{2}:?\d{2})$/.test(trimmed) ? `${trimmed.replace(' ', 'T')}Z` : trimmed;
    const ms = Date.parse(zoned);
    if (Number.isFinite(ms)) return new Date(ms).toISOString();
  }
  throw usageError(`${name} must be an ISO 8601 time (2026-02-09T10:00:00Z), a date (2026-02-09) or a duration back from now (15m, 2h, 7d), got ${JSON.stringify(value)}`);
}

/** The filter the options describe, checked with the protocol's schema. */
export function filterFrom(values: LogValues, now: number): SignalLogFilter {
  const raw: Record<string, string> = {};
  if (values.since !== undefined) raw['since'] = parseTimeOption('--since', values.since, now);
  if (values.until !== undefined) raw['until'] = parseTimeOption('--until', values.until, now);
  if (values.agent !== undefined) raw['agent_id'] = values.agent;
  if (values.session !== undefined) raw['session_id'] = values.session;
  if (values.hook !== undefined) raw['hook'] = values.hook;
  if (values.intensity !== undefined) raw['intensity'] = values.intensity;
  if (values.source !== undefined) raw['source'] = values.source;
  const parsed = SignalLogFilterSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const option = { agent_id: '--agent', session_id: '--session' }[String(issue?.path[0])] ?? `--${String(issue?.path[0])}`;
    throw usageError(`${option}: ${issue?.message ?? 'invalid'}`);
  }
  if (parsed.data.since !== undefined && parsed.data.until !== undefined && parsed.data.since >= parsed.data.until) {
    throw usageError('--since must be before --until');
  }
  return parsed.data;
}

/** The time part of a stream id (`1764141000000-0`), in ms. */
function idTime(id: string | undefined): number | undefined {
  const ms = Number(id?.split('-')[0]);
  return id === undefined || !Number.isFinite(ms) ? undefined : ms;
}

/**
 * How far an export has come, as a share of the part of the log it reads: from `since` (or the
 * first entry) to `until` (or the last entry), by the time in the stream ids.
 */
async function exportWindow(deployment: Deployment, filter: SignalLogFilter): Promise<(lastId: string) => number> {
  const [first] = (await deployment.redis.xRange(deployment.keys.signalLog, '-', '+', { COUNT: 1 })) ?? [];
  const [last] = (await deployment.redis.xRevRange(deployment.keys.signalLog, '+', '-', { COUNT: 1 })) ?? [];
  const from = Math.max(idTime(first?.id) ?? 0, filter.since === undefined ? 0 : Date.parse(filter.since));
  const to = Math.min(idTime(last?.id) ?? 0, filter.until === undefined ? Number.POSITIVE_INFINITY : Date.parse(filter.until));
  return (lastId) => (to <= from ? 1 : Math.min(1, Math.max(0, ((idTime(lastId) ?? to) - from) / (to - from))));
}

export async function logExport(values: LogValues, io: CliIo): Promise<number> {
  const filter = filterFrom(values, Date.now());
  const limit = values.limit === undefined ? undefined : wholeNumber('--limit', values.limit, 1);
  const deployment = await connectDeployment(values, io);
  const progress = progressReporter(io.stderr, 'log export');
  let exported;
  try {
    const share = await exportWindow(deployment, filter);
    exported = await exportSignalLog(deployment.redis, deployment.keys, {
      filter,
      ...(limit === undefined ? {} : { limit }),
      onPage: ({ scanned, lastId }) => progress.update(`(${scanned} log entries read)`, share(lastId)),
    });
  } finally {
    progress.done();
    await deployment.close();
  }
  const jsonl = toJsonl(exported.lines);
  const report = { lines: exported.lines.length, scanned: exported.scanned, skipped: exported.skipped, truncated: exported.truncated };
  if (values.out !== undefined) {
    const path = isAbsolute(values.out) ? values.out : resolve(io.cwd, values.out);
    try {
      await writeFile(path, jsonl, 'utf8');
    } catch (error) {
      throw invalidInput(`cannot write ${values.out}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (values.json) printJson(io, { file: values.out, ...report });
  } else {
    io.stdout.write(jsonl);
  }
  if (!values.json || values.out === undefined) {
    const notes = [
      `${report.lines} signal${report.lines === 1 ? '' : 's'}${values.out === undefined ? '' : ` written to ${values.out}`}`,
      `${report.scanned} log entries read`,
      ...(report.skipped > 0 ? [`${report.skipped} unreadable entries skipped`] : []),
      ...(report.truncated ? [`stopped at --limit ${String(limit)}`] : []),
    ];
    io.stderr.write(`${notes.join(', ')}\n`);
  }
  return EXIT.ok;
}

function groupRows(label: string, groups: Record<string, SignalLogGroupStats>): string[][] {
  const header = [label.toUpperCase(), 'SIGNALS', 'ANSWERED', ...INTENSITIES.map((i) => i.toUpperCase()), 'ACTIONS'];
  const rows = Object.entries(groups)
    .sort(([a, ga], [b, gb]) => gb.signals - ga.signals || a.localeCompare(b))
    .map(([key, group]) => [
      key,
      String(group.signals),
      `${group.consumed} (${percent(group.signals === 0 ? 0 : group.consumed / group.signals)})`,
      ...INTENSITIES.map((intensity) => String(group.intensities[intensity] ?? 0)),
      Object.entries(group.actions)
        .map(([action, count]) => `${action} ${count}`)
        .join(', ') || '-',
    ]);
  return [header, ...rows];
}

/** Statistics as text: totals, how each intensity was answered, then per hook, oracle, rule and version. */
export function formatStats(stats: SignalLogStats): string {
  const { total } = stats;
  const parts: string[] = [];
  const span = stats.first_at === undefined ? '' : `  from ${stats.first_at} to ${stats.last_at ?? stats.first_at}`;
  parts.push(`${total.signals} signals, ${total.consumed} answered (${percent(total.signals === 0 ? 0 : total.consumed / total.signals)}), ${total.unanswered} unanswered${span}`);
  if (stats.latency_ms !== undefined) {
    parts.push(`decision latency: p50 ${stats.latency_ms.p50} ms, p95 ${stats.latency_ms.p95} ms, max ${stats.latency_ms.max} ms`);
  }
  if (total.signals === 0) return `${parts.join('\n')}\n`;

  const outcomeRows: string[][] = [['INTENSITY', 'SIGNALS', 'ANSWERED', 'ACTION', 'COUNT', 'SHARE OF ANSWERS']];
  for (const intensity of INTENSITIES) {
    const group = stats.by_intensity[intensity];
    if (group === undefined) continue;
    const actions = actionsForIntensity(intensity);
    actions.forEach((action, index) => {
      const count = group.actions[action] ?? 0;
      outcomeRows.push([
        index === 0 ? intensity : '',
        index === 0 ? String(group.signals) : '',
        index === 0 ? String(group.consumed) : '',
        action,
        String(count),
        group.consumed === 0 ? '-' : percent(count / group.consumed),
      ]);
    });
  }
  parts.push('', 'How signals were answered', table(outcomeRows));
  parts.push('', 'By hook', table(groupRows('hook', stats.by_hook)));
  parts.push('', 'By oracle', table(groupRows('oracle', stats.by_source)));
  if (Object.keys(stats.by_rule).length > 0) parts.push('', 'By rule', table(groupRows('rule', stats.by_rule)));
  parts.push('', 'By configuration version', table(groupRows('version', stats.by_config_version)));
  return `${parts.join('\n')}\n`;
}

export async function logStats(values: LogValues, io: CliIo): Promise<number> {
  const filter = filterFrom(values, Date.now());
  const deployment = await connectDeployment(values, io);
  let stats: SignalLogStats;
  try {
    stats = await readSignalLogStats(deployment.redis, deployment.keys, { filter });
  } finally {
    await deployment.close();
  }
  if (values.json) printJson(io, stats);
  else io.stdout.write(formatStats(stats));
  return EXIT.ok;
}
