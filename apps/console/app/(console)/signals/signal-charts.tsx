/**
 * The signal log's two charts, drawn as inline SVG: signals per intensity over time (stacked
 * bars), and how agents answered each intensity (stacked horizontal bars). Each chart also has
 * its numbers as a table for screen readers; colour is paired with a legend and labels.
 */
import { INTENSITIES, type Intensity } from '@ahp/protocol';
import type { IntensityBucket, IntensityResponses } from '@/lib/view/signal-buckets';
import { formatTimestamp } from '@/lib/view/format';

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 40 };

function Legend({ items }: { items: { key: string; label: string }[] }) {
  return (
    <ul className="legend" aria-hidden="true">
      {items.map((item) => (
        <li key={item.key}>
          <span className={`swatch fill-${item.key}`} /> {item.label}
        </li>
      ))}
    </ul>
  );
}

function shortTime(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  // Within a few hours the time says it all; over longer spans the day matters too.
  return spanMs >= 12 * 3_600_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

export function SignalsOverTime({ buckets }: { buckets: IntensityBucket[] }) {
  const max = Math.max(1, ...buckets.map((bucket) => bucket.total));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const barW = innerW / Math.max(1, buckets.length);
  const first = buckets[0];
  const last = buckets.at(-1);
  const span = first && last ? last.end - first.start : 0;
  const total = buckets.reduce((sum, bucket) => sum + bucket.total, 0);
  return (
    <figure className="chart">
      <figcaption>Signals by intensity over time (UTC)</figcaption>
      <Legend items={INTENSITIES.map((intensity) => ({ key: intensity, label: intensity }))} />
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={`${total} signals over ${buckets.length} time buckets; the table below lists the numbers`} preserveAspectRatio="none">
        <line x1={PAD.left} y1={PAD.top + innerH} x2={WIDTH - PAD.right} y2={PAD.top + innerH} className="axis" />
        <text x={PAD.left - 6} y={PAD.top + 4} className="tick" textAnchor="end">
          {max}
        </text>
        <text x={PAD.left - 6} y={PAD.top + innerH} className="tick" textAnchor="end">
          0
        </text>
        {buckets.map((bucket, i) => {
          let y = PAD.top + innerH;
          return (
            <g key={bucket.start}>
              {INTENSITIES.map((intensity) => {
                const h = (bucket.counts[intensity] / max) * innerH;
                y -= h;
                return h > 0 ? <rect key={intensity} x={PAD.left + i * barW + 1} y={y} width={Math.max(1, barW - 2)} height={h} className={`fill-${intensity}`} /> : null;
              })}
            </g>
          );
        })}
        {first && last ? (
          <>
            <text x={PAD.left} y={HEIGHT - 8} className="tick">
              {shortTime(first.start, span)}
            </text>
            <text x={WIDTH - PAD.right} y={HEIGHT - 8} className="tick" textAnchor="end">
              {shortTime(last.end, span)}
            </text>
          </>
        ) : null}
      </svg>
      <table className="visually-hidden">
        <caption>Signals per time bucket and intensity</caption>
        <thead>
          <tr>
            <th scope="col">From</th>
            {INTENSITIES.map((intensity) => (
              <th key={intensity} scope="col">
                {intensity}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {buckets
            .filter((bucket) => bucket.total > 0)
            .map((bucket) => (
              <tr key={bucket.start}>
                <th scope="row">{formatTimestamp(new Date(bucket.start).toISOString())}</th>
                {INTENSITIES.map((intensity) => (
                  <td key={intensity}>{bucket.counts[intensity]}</td>
                ))}
              </tr>
            ))}
        </tbody>
      </table>
    </figure>
  );
}

/** Colour class of a response segment: answers take their intensity's colour family; unanswered is grey. */
function segmentClass(intensity: Intensity, label: string, index: number): string {
  return label === 'unanswered' ? 'fill-unanswered' : `fill-${intensity} shade-${index % 3}`;
}

export function ResponsesChart({ rows }: { rows: IntensityResponses[] }) {
  const rowH = 34;
  const labelW = 70;
  const height = Math.max(1, rows.length) * rowH + 8;
  const innerW = WIDTH - labelW - PAD.right;
  return (
    <figure className="chart">
      <figcaption>How agents answered, per intensity</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label="Answers per intensity; the table below lists the numbers">
        {rows.map((row, r) => {
          let x = labelW;
          return (
            <g key={row.intensity}>
              <text x={labelW - 8} y={r * rowH + 22} className="tick" textAnchor="end">
                {row.intensity}
              </text>
              {row.segments.map((segment, i) => {
                const w = (segment.count / row.signals) * innerW;
                const rect = (
                  <g key={segment.label}>
                    <rect x={x} y={r * rowH + 6} width={Math.max(1, w)} height={rowH - 12} className={segmentClass(row.intensity, segment.label, i)}>
                      <title>
                        {segment.label}: {segment.count}
                      </title>
                    </rect>
                    {w > 90 ? (
                      <text x={x + 6} y={r * rowH + 22} className="bar-label">
                        {segment.label} {segment.count}
                      </text>
                    ) : null}
                  </g>
                );
                x += w;
                return rect;
              })}
            </g>
          );
        })}
      </svg>
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
