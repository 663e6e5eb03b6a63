/**
 * Number formats shared by the progress lines, the table and BENCHMARKS.md.
 */
import type { ProcessProfile } from '../results.js';

/** Milliseconds with three significant digits: `0.0512 ms`, `1.23 ms`, `42.1 ms`, `1,234 ms`; `—` when unknown. */
export function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  if (value >= 100) return `${count(Math.round(value))} ms`;
  return `${Number(value.toPrecision(3))} ms`;
}

/** A whole number with thousands separators: `12,345`; `—` when unknown. */
export function count(value: number | undefined | null): string {
  if (value === undefined || value === null || !Number.isFinite(value)) return '—';
  return Math.round(value).toLocaleString('en-US');
}

/** Bytes as KiB with one decimal: `13.4 KB`. */
export function kib(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '—';
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** Seconds as `1m 05s` or `42.0 s`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m ${String(Math.round(seconds - minutes * 60)).padStart(2, '0')}s`;
}

/** The load a profile window ran, as the report names it: `flat out (256 in flight)`, `open loop at 600/s`. */
export function loadName(load: ProcessProfile['load']): string {
  return load.kind === 'closed' ? `flat out (${load.inFlight} in flight)` : `open loop at ${count(load.rate)}/s`;
}
