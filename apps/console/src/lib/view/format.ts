/** How the console writes times, ages and durations. Pure: the current time is an argument. */

/** A span of milliseconds as people say it: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/**
 * How long ago `iso` was, e.g. `3 min ago` (`just now` under a second). Every caller shows
 * something that already happened, so a time after `nowMs` can only be clock skew between the
 * server that stamped it and this browser: it reads `just now`, never `in 3 s`.
 */
export function formatAgo(iso: string, nowMs: number): string {
  const delta = nowMs - Date.parse(iso);
  if (Number.isNaN(delta)) return iso;
  if (delta < 1000) return 'just now';
  return `${formatSpan(delta)} ago`;
}

/** A deadline relative to now: `in 4 min`, or `passed 20 s ago`. */
export function formatDeadline(iso: string, nowMs: number): string {
  const delta = Date.parse(iso) - nowMs;
  if (Number.isNaN(delta)) return iso;
  return delta >= 0 ? `in ${formatSpan(delta)}` : `passed ${formatSpan(-delta)} ago`;
}

/** An absolute time in UTC, to the second: `2026-02-09 10:02:30 UTC` (the same for every operator). */
export function formatTimestamp(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Milliseconds with a unit, rounded sensibly: `12 ms`, `1.4 s`; `–` for null. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
