'use client';
/**
 * The signal log: filters (kept in the URL), statistics, the two charts, the JSONL export of the
 * same filters, and the newest lines. Re-read (debounced) when the live feed says signals were
 * sent or answered.
 */
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import type { OperatorLiveEvent, SignalLogGroupStats, SignalLogLine } from '@ahp/protocol';
import { hookHref } from '@/lib/api/hooks';
import { fetchSignalLines, fetchSignalStats, signalExportHref } from '@/lib/api/signals';
import { useNow, useResource } from '@/lib/live/use-resource';
import { formatMs } from '@/lib/view/format';
import { subjectLine } from '@/lib/view/signal-subject';
import { chartRange, responseBreakdown } from '@/lib/view/signal-buckets';
import { formFromSearch, resolveFilters, searchFromForm, type SignalFilterForm } from '@/lib/view/signal-filters';
import { IntensityBadge } from '@/components/badges';
import { SignalSubjectView } from '@/components/signal-subject';
import { Empty, ErrorState, Loading, StaleNotice } from '@/components/states';
import { Timestamp } from '@/components/time';
import { ResponsesChart, RulesView } from './signal-charts';
import { SignalsTimeChart } from './signals-time-chart';
import { SignalFiltersForm } from './signal-filters-form';

/** Lines fetched for the table and the time chart; the statistics count every matching line. */
const LINE_LIMIT = 5_000;
/** Rows shown in the table (newest first). */
const TABLE_ROWS = 200;
/** Lines in one export (the API's maximum). */
const EXPORT_LIMIT = 10_000;

/**
 * A line's answer: the action (marked "inferred" when the control plane read it from what a client
 * that cannot report answers did next), "not reported by this client" for such a client's signal
 * with no inferable answer, else "unanswered" (docs/claude-code.md, "Answers").
 */
function AnswerCell({ line }: { line: SignalLogLine }) {
  if (line.action) {
    return (
      <span>
        <code>{line.action}</code>
        {line.answer === 'inferred' ? <span className="muted"> · inferred</span> : null}
      </span>
    );
  }
  if (line.answer === 'not_reported') return <span className="muted">not reported by this client</span>;
  return <span className="muted">unanswered</span>;
}

function GroupTable({ title, groups }: { title: string; groups: Record<string, SignalLogGroupStats> }) {
  const entries = Object.entries(groups).sort((a, b) => b[1].signals - a[1].signals);
  if (entries.length === 0) return null;
  return (
    <div className="table-scroll">
      <table className="table table-compact">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Signals</th>
            <th scope="col">Answered</th>
            <th scope="col">Unanswered</th>
            <th scope="col" title="signals of clients that cannot report answers (Claude Code), where nothing it did next told the answer">
              Not reported
            </th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([name, group]) => (
            <tr key={name}>
              <th scope="row">
                <code>{name}</code>
              </th>
              <td>{group.signals}</td>
              <td>{group.consumed}</td>
              <td>{group.unanswered}</td>
              <td>{group.not_reported ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LinesTable({ lines }: { lines: SignalLogLine[] }) {
  const newest = [...lines].reverse().slice(0, TABLE_ROWS);
  return (
    <div className="table-scroll">
      <table className="table table-cards">
        <caption>
          Newest signals{lines.length > TABLE_ROWS ? ` (${TABLE_ROWS} of ${lines.length}; export for all)` : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Sent</th>
            <th scope="col">Agent</th>
            <th scope="col">Hook</th>
            <th scope="col">Intensity</th>
            <th scope="col">Oracle / rule</th>
            <th scope="col">What</th>
            <th scope="col">Answer</th>
            <th scope="col">Latency</th>
          </tr>
        </thead>
        <tbody>
          {newest.map((line) => (
            <tr key={line.signal_id}>
              <td data-label="Sent">
                <Timestamp at={line.timestamp} />
              </td>
              <th scope="row" data-label="Agent">
                <Link href={`/agents/${encodeURIComponent(line.agent_id)}`}>{line.agent_id}</Link>
              </th>
              <td data-label="Hook">
                {line.hook ? (
                  <Link href={hookHref(line.correlation_id)} title="The hook's drill-down: oracle verdicts, latency by stage, context" data-testid="hook-link">
                    <code>{line.hook}</code>
                  </Link>
                ) : (
                  <span className="muted">none (operator)</span>
                )}
              </td>
              <td data-label="Intensity">
                <IntensityBadge intensity={line.intensity} />
              </td>
              <td data-label="Oracle / rule">
                {line.source}
                {line.rule ? <span className="muted"> · {line.rule}</span> : null}
              </td>
              <td data-label="What" className="subject-cell" title={subjectLine(line.subject) || undefined}>
                {line.subject ? <SignalSubjectView subject={line.subject} compact /> : <span className="muted">–</span>}
              </td>
              <td data-label="Answer">
                <AnswerCell line={line} />
              </td>
              <td data-label="Latency">{formatMs(line.latency_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SignalsView() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const search = params.toString();
  const form = formFromSearch(new URLSearchParams(search));
  const agentFilter = form.agent;
  const refreshOn = {
    refreshOn: (event: OperatorLiveEvent) => event.kind === 'signals' && (agentFilter === undefined || event.agent_ids.includes(agentFilter)),
    debounceMs: 1_000,
  };
  const lines = useResource(`lines?${search}`, (signal) => fetchSignalLines(resolveFilters(form, Date.now()), LINE_LIMIT, signal), refreshOn);
  const stats = useResource(`stats?${search}`, (signal) => fetchSignalStats(resolveFilters(form, Date.now()), signal), refreshOn);
  const now = useNow(30_000);
  const filters = resolveFilters(form, now);

  const apply = (next: SignalFilterForm) => {
    const qs = searchFromForm(next);
    router.replace(qs ? `${pathname}?${qs}` : pathname);
  };

  const range = lines.data ? chartRange(lines.data.lines, filters.since, filters.until, now) : null;
  return (
    <>
      <div className="page-head">
        <h1>Signal log</h1>
        <p className="muted">Every signal sent to an agent, with its answer.</p>
      </div>
      <SignalFiltersForm key={search} value={form} onApply={apply} />
      <p className="export">
        <a className="button" href={signalExportHref(filters, EXPORT_LIMIT)} download>
          Export JSONL
        </a>{' '}
        <span className="muted">the same filters, up to {EXPORT_LIMIT.toLocaleString('en')} lines, in the format of <code>ahp log export</code></span>
      </p>
      {stats.status === 'loading' || lines.status === 'loading' ? <Loading label="Loading signals" /> : null}
      {stats.status === 'error' && stats.error ? <ErrorState title="Could not load the statistics." error={stats.error} onRetry={stats.reload} /> : null}
      {lines.status === 'error' && lines.error ? <ErrorState title="Could not load the signals." error={lines.error} onRetry={lines.reload} /> : null}
      {(stats.data && stats.error) || (lines.data && lines.error) ? <StaleNotice error={(stats.error ?? lines.error) as Error} onRetry={() => (stats.reload(), lines.reload())} /> : null}
      {stats.data ? (
        <section aria-labelledby="stats-heading" className="section">
          <h2 id="stats-heading">Statistics</h2>
          <dl className="counts">
            <div className="count">
              <dt>Signals</dt>
              <dd data-testid="stat-signals">{stats.data.total.signals}</dd>
            </div>
            <div className="count">
              <dt>Answered</dt>
              <dd>{stats.data.total.consumed}</dd>
            </div>
            <div className="count">
              <dt>Unanswered</dt>
              <dd>{stats.data.total.unanswered}</dd>
            </div>
            <div className="count">
              <dt>Not reported by the client</dt>
              <dd>{stats.data.total.not_reported ?? 0}</dd>
            </div>
            <div className="count">
              <dt>Latency p50 / p95</dt>
              <dd>{stats.data.latency_ms ? `${formatMs(stats.data.latency_ms.p50)} / ${formatMs(stats.data.latency_ms.p95)}` : '–'}</dd>
            </div>
          </dl>
        </section>
      ) : null}
      {stats.data && stats.data.total.signals === 0 ? <Empty title="No signals match.">Widen the time window or clear a filter; signals appear as oracles send them.</Empty> : null}
      {stats.data && stats.data.total.signals > 0 ? (
        <div className="charts">
          {lines.data && range ? (
            <SignalsTimeChart
              lines={lines.data.lines}
              fitted={range}
              onFilterRange={(zoomed) => apply({ ...form, window: 'custom', since: new Date(zoomed.from).toISOString(), until: new Date(zoomed.to).toISOString() })}
            />
          ) : null}
          <ResponsesChart rows={responseBreakdown(stats.data)} />
        </div>
      ) : null}
      {lines.data?.truncated ? (
        <p className="notice notice-info" role="note">
          The chart and the table cover the oldest {LINE_LIMIT.toLocaleString('en')} matching signals; the statistics count them all. Narrow the filters to see the newest.
        </p>
      ) : null}
      {stats.data && stats.data.total.signals > 0 ? (
        <div className="grid-2">
          <GroupTable title="By hook" groups={stats.data.by_hook} />
          <GroupTable title="By oracle" groups={stats.data.by_source} />
        </div>
      ) : null}
      {stats.data && stats.data.total.signals > 0 ? <RulesView stats={stats.data} /> : null}
      {lines.data && lines.data.lines.length > 0 ? <LinesTable lines={lines.data.lines} /> : null}
    </>
  );
}
