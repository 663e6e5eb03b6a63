'use client';
/**
 * Signals per intensity over time, drawn by uPlot (a small canvas chart library: axes, cursor and
 * drag selection built in). It opens on the span of the signals themselves; dragging across it
 * zooms in — the signals of that span are counted again in finer buckets, not just stretched —
 * and "Reset zoom" (or a double click) goes back. A tooltip at the cursor gives the bucket's time
 * and its count per intensity; "Filter the log to this range" turns the zoomed span into the
 * page's custom time filter, so the statistics, tables and export follow. The numbers are also
 * in a table for screen readers; colour is paired with a legend.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { INTENSITIES, type Intensity, type SignalLogLine } from '@ahp/protocol';
import { bucketByIntensity, type IntensityBucket } from '@/lib/view/signal-buckets';
import { formatTimestamp } from '@/lib/view/format';

/** Buckets across the visible span, whatever its length: zooming in makes each one shorter. */
const BUCKETS = 48;
const HEIGHT = 240;
/** A drag narrower than this (px) is a click, not a selection. */
const MIN_DRAG_PX = 4;

/** Stacked bars: each series draws its cumulative height, the tallest first, so the ones after it sit in front. */
const STACK_ORDER: readonly Intensity[] = [...INTENSITIES].reverse();

interface Range {
  from: number;
  to: number;
}

function cssVar(name: string, fallback: string): string {
  if (typeof window === 'undefined') return fallback;
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value === '' ? fallback : value;
}

/** uPlot's data: x in seconds (bucket starts), then one cumulative series per intensity in STACK_ORDER. */
function chartData(buckets: readonly IntensityBucket[]): uPlot.AlignedData {
  const xs = buckets.map((bucket) => bucket.start / 1000);
  const series = STACK_ORDER.map((_, i) => buckets.map((bucket) => STACK_ORDER.slice(i).reduce((sum, intensity) => sum + bucket.counts[intensity], 0)));
  return [xs, ...series];
}

function utcLabel(ms: number, spanMs: number): string {
  const iso = new Date(ms).toISOString();
  if (spanMs < 10 * 60_000) return iso.slice(11, 19);
  return spanMs >= 12 * 3_600_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** Fills the tooltip element for the bucket under the cursor (or hides it). Plain DOM: it follows the mouse, React need not re-render. */
function showTooltip(tip: HTMLElement, u: uPlot, buckets: readonly IntensityBucket[]): void {
  const idx = u.cursor.idx;
  const bucket = idx === null || idx === undefined ? undefined : buckets[idx];
  if (!bucket || u.cursor.left === undefined || u.cursor.left < 0) {
    tip.hidden = true;
    return;
  }
  tip.replaceChildren();
  const head = document.createElement('div');
  head.className = 'chart-tooltip-time';
  const spanMs = (buckets.at(-1)?.end ?? bucket.end) - (buckets[0]?.start ?? bucket.start);
  head.textContent = `${utcLabel(bucket.start, spanMs)} – ${utcLabel(bucket.end, spanMs)} UTC`;
  tip.append(head);
  for (const intensity of INTENSITIES) {
    const row = document.createElement('div');
    row.dataset['intensity'] = intensity;
    const swatch = document.createElement('span');
    swatch.className = `swatch fill-${intensity}`;
    row.append(swatch, ` ${intensity} ${bucket.counts[intensity]}`);
    tip.append(row);
  }
  const total = document.createElement('div');
  total.className = 'chart-tooltip-total';
  total.textContent = `${bucket.total} signal${bucket.total === 1 ? '' : 's'}`;
  tip.append(total);
  tip.hidden = false;
  const left = Math.min(u.cursor.left + 14, Math.max(0, u.over.clientWidth - tip.offsetWidth));
  tip.style.transform = `translate(${left}px, ${Math.max(0, (u.cursor.top ?? 0) - 10)}px)`;
}

export function SignalsTimeChart({ lines, fitted, onFilterRange }: { lines: readonly Pick<SignalLogLine, 'timestamp' | 'intensity'>[]; fitted: Range; onFilterRange(range: Range): void }) {
  const [zoom, setZoom] = useState<Range | null>(null);
  const range = zoom ?? fitted;
  const buckets = useMemo(() => bucketByIntensity(lines, range.from, range.to, BUCKETS), [lines, range.from, range.to]);
  const holder = useRef<HTMLDivElement>(null);
  const tip = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  // The latest buckets and zoom setter for uPlot's hooks, which are bound once per chart.
  const current = useRef({ buckets, setZoom });
  current.current = { buckets, setZoom };

  useEffect(() => {
    const el = holder.current;
    if (!el) return undefined;
    const muted = cssVar('--muted', '#6b7280');
    const grid = cssVar('--border', '#e5e7eb');
    const spanMs = range.to - range.from;
    const opts: uPlot.Options = {
      width: Math.max(280, el.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      scales: {
        x: { time: true, range: () => [range.from / 1000, range.to / 1000] },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      axes: [
        { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, values: (_u, splits) => splits.map((s) => utcLabel(s * 1000, spanMs)) },
        { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000], values: (_u, splits) => splits.map((s) => String(s)) },
      ],
      series: [
        {},
        ...STACK_ORDER.map((intensity) => {
          const colour = cssVar(`--${intensity}`, '#888');
          return { label: intensity, fill: colour, stroke: colour, width: 0, points: { show: false }, paths: uPlot.paths.bars?.({ size: [0.9, 80], align: 1 }) };
        }),
      ],
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      hooks: {
        setSelect: [
          (u) => {
            if (u.select.width >= MIN_DRAG_PX) {
              const from = Math.round(u.posToVal(u.select.left, 'x') * 1000);
              const to = Math.round(u.posToVal(u.select.left + u.select.width, 'x') * 1000);
              if (to > from) current.current.setZoom({ from, to });
            }
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          },
        ],
        setCursor: [
          (u) => {
            if (tip.current) showTooltip(tip.current, u, current.current.buckets);
          },
        ],
        ready: [
          (u) => {
            u.over.addEventListener('dblclick', () => current.current.setZoom(null));
            u.over.addEventListener('mouseleave', () => {
              if (tip.current) tip.current.hidden = true;
            });
          },
        ],
      },
    };
    const chart = new uPlot(opts, chartData(current.current.buckets), el);
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, el.clientWidth), height: HEIGHT }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // A new range rebuilds the chart (its scale and tick labels); new data for the same range only replaces the data below.
  }, [range.from, range.to]);

  useEffect(() => {
    plot.current?.setData(chartData(buckets), true);
  }, [buckets]);

  const total = buckets.reduce((sum, bucket) => sum + bucket.total, 0);
  return (
    <figure className="chart" data-testid="signals-time-chart" data-from={new Date(range.from).toISOString()} data-to={new Date(range.to).toISOString()} data-zoomed={zoom ? 'true' : 'false'}>
      <figcaption>
        Signals by intensity over time (UTC), {formatTimestamp(new Date(range.from).toISOString())} – {formatTimestamp(new Date(range.to).toISOString())}
        <span className="muted"> · drag across the chart to zoom</span>
      </figcaption>
      <ul className="legend" aria-hidden="true">
        {INTENSITIES.map((intensity) => (
          <li key={intensity}>
            <span className={`swatch fill-${intensity}`} /> {intensity}
          </li>
        ))}
      </ul>
      <div className="chart-canvas" role="img" aria-label={`${total} signals in ${buckets.length} time buckets; the table below lists the numbers`}>
        <div ref={holder} />
        <div ref={tip} className="chart-tooltip" role="tooltip" data-testid="chart-tooltip" hidden />
      </div>
      {zoom ? (
        <p className="chart-actions">
          <button type="button" className="button" onClick={() => setZoom(null)}>
            Reset zoom
          </button>{' '}
          <button type="button" className="button" onClick={() => onFilterRange(zoom)}>
            Filter the log to this range
          </button>
        </p>
      ) : null}
      {/* Hidden on a wrapper: a table never shrinks to the 1 px a visually hidden box has, and would widen the page. */}
      <div className="visually-hidden">
        <table>
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
      </div>
    </figure>
  );
}
