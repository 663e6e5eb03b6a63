'use client';
/**
 * How agents answered each intensity, as proportion bars (one stacked bar per intensity, each
 * segment an action with its count in a tooltip and, where it fits, a label), with the numbers in
 * a table; and the per-rule view. Proportions of a whole need no axis, zoom or cursor, so these
 * are plain HTML; the time series is drawn by uPlot (signals-time-chart.tsx).
 */
import { useState } from 'react';
import type { Intensity } from '@ahp/protocol';
import { ruleSummaries, type IntensityResponses, type RuleOrder } from '@/lib/view/signal-buckets';
import { IntensityBadge } from '@/components/badges';

/** Colour class of a response segment: answers take their intensity's colour family; unanswered is grey. */
function segmentClass(intensity: Intensity, label: string, index: number): string {
  return label === 'unanswered' ? 'fill-unanswered' : `fill-${intensity} shade-${index % 3}`;
}

export function ResponsesChart({ rows }: { rows: IntensityResponses[] }) {
  return (
    <figure className="chart">
      <figcaption>How agents answered, per intensity</figcaption>
      <div className="proportion-bars" aria-hidden="true">
        {rows.map((row) => (
          <div key={row.intensity} className="proportion-row">
            <span className="proportion-label">{row.intensity}</span>
            <span className="proportion-bar">
              {row.segments.map((segment, i) => {
                const share = segment.count / row.signals;
                return (
                  <span key={segment.label} className={`proportion-segment ${segmentClass(row.intensity, segment.label, i)}`} style={{ width: `${(share * 100).toFixed(2)}%` }} title={`${segment.label}: ${segment.count} of ${row.signals}`}>
                    {share >= 0.18 ? `${segment.label} ${segment.count}` : ''}
                  </span>
                );
              })}
            </span>
          </div>
        ))}
      </div>
      <table className="table table-compact">
        <caption className="visually-hidden">Answers per intensity and action</caption>
        <thead>
          <tr>
            <th scope="col">Intensity</th>
            <th scope="col">Signals</th>
            <th scope="col">Answers</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.intensity}>
              <th scope="row">{row.intensity}</th>
              <td>{row.signals}</td>
              <td>{row.segments.map((segment) => `${segment.label} ${segment.count}`).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

const RULE_ORDERS: Record<RuleOrder, string> = { signals: 'Most signals', overridden: 'Most overridden', unanswered: 'Most unanswered' };

/**
 * Per rule: how often it fired and at which intensities (a rule with an escalation ladder shows
 * each step it reached), how agents answered — overridden (a block passed at the agent's own risk,
 * a modification rejected, a prompt dismissed), given up (`abort`), the most frequent answer — and
 * what is still unanswered. The rules worth a second look sort to the top on request.
 */
export function RulesView({ stats }: { stats: Parameters<typeof ruleSummaries>[0] }) {
  const [order, setOrder] = useState<RuleOrder>('signals');
  const rows = ruleSummaries(stats, order);
  if (rows.length === 0) return null;
  return (
    <section aria-labelledby="rules-heading" className="section" data-testid="rules-view">
      <div className="section-head">
        <h2 id="rules-heading">By rule</h2>
        <label className="inline-field">
          Order{' '}
          <select value={order} onChange={(event) => setOrder(event.target.value as RuleOrder)} aria-label="Order the rules">
            {(Object.keys(RULE_ORDERS) as RuleOrder[]).map((key) => (
              <option key={key} value={key}>
                {RULE_ORDERS[key]}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="table-scroll">
        <table className="table table-cards table-compact">
          <caption className="visually-hidden">Signals per rule and how agents answered them</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Signals</th>
              <th scope="col">Intensities</th>
              <th scope="col">Answered</th>
              <th scope="col" title="a block passed at the agent's own risk (proceed_with_risk), a modification rejected, a prompt dismissed">
                Overridden
              </th>
              <th scope="col" title="blocks the agent gave up on (abort)">
                Given up
              </th>
              <th scope="col">Unanswered</th>
              <th scope="col">Most frequent answer</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.rule} data-rule={row.rule}>
                <th scope="row" data-label="Rule">
                  <code>{row.rule}</code>
                </th>
                <td data-label="Signals">{row.signals}</td>
                <td data-label="Intensities">
                  {row.intensities.map((entry) => (
                    <span key={entry.intensity} className="rule-intensity">
                      <IntensityBadge intensity={entry.intensity} /> {entry.count}
                    </span>
                  ))}
                </td>
                <td data-label="Answered">{row.answered}</td>
                <td data-label="Overridden" data-testid="rule-overridden">
                  {row.overridden}
                  {row.answered > 0 ? <span className="muted"> ({Math.round(row.overriddenShare * 100)} %)</span> : null}
                </td>
                <td data-label="Given up">{row.abandoned}</td>
                <td data-label="Unanswered">{row.unanswered}</td>
                <td data-label="Most frequent answer">{row.topAnswer ? <><code>{row.topAnswer.action}</code> {row.topAnswer.count}</> : <span className="muted">none yet</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
