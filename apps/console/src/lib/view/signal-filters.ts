/**
 * The signal log page's filters, kept in the URL (so a filtered view can be shared and survives a
 * reload) and turned into the operator API's query. Values that do not fit the protocol's schemas
 * are dropped rather than sent, so the page never asks the gateway something it must refuse.
 */
import { HookTriggerSchema, IdSchema, IntensitySchema, ShortStringSchema, TimestampSchema, type HookTrigger, type Intensity } from '@ahp/protocol';

/** The time windows the page offers, ending now; `custom` uses `since`/`until`. */
export const SIGNAL_WINDOWS = { '15m': 15 * 60_000, '1h': 3_600_000, '6h': 6 * 3_600_000, '24h': 24 * 3_600_000, '7d': 7 * 24 * 3_600_000 } as const;
export type SignalWindow = keyof typeof SIGNAL_WINDOWS | 'custom';
export const DEFAULT_SIGNAL_WINDOW: SignalWindow = '24h';

/** The filters as the form holds them. */
export interface SignalFilterForm {
  window: SignalWindow;
  /** ISO timestamps, only with `window: 'custom'`. */
  since?: string;
  until?: string;
  agent?: string;
  hook?: HookTrigger;
  intensity?: Intensity;
  source?: string;
}

/** The filters as the operator API takes them. */
export interface SignalFilters {
  since?: string;
  until?: string;
  agent?: string;
  hook?: HookTrigger;
  intensity?: Intensity;
  source?: string;
}

function valid<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } }, value: string | null): T | undefined {
  if (value === null || value.trim() === '') return undefined;
  const parsed = schema.safeParse(value.trim());
  return parsed.success ? parsed.data : undefined;
}

/** Reads the form from the page's query string; anything invalid is left out. */
export function formFromSearch(params: URLSearchParams): SignalFilterForm {
  const rawWindow = params.get('window');
  const window: SignalWindow = rawWindow === 'custom' || (rawWindow !== null && rawWindow in SIGNAL_WINDOWS) ? (rawWindow as SignalWindow) : DEFAULT_SIGNAL_WINDOW;
  const form: SignalFilterForm = { window };
  if (window === 'custom') {
    const since = valid(TimestampSchema, params.get('since'));
    const until = valid(TimestampSchema, params.get('until'));
    if (since) form.since = since;
    if (until) form.until = until;
  }
  const agent = valid(IdSchema, params.get('agent'));
  const hook = valid(HookTriggerSchema, params.get('hook'));
  const intensity = valid(IntensitySchema, params.get('intensity'));
  const source = valid(ShortStringSchema, params.get('source'));
  if (agent) form.agent = agent;
  if (hook) form.hook = hook;
  if (intensity) form.intensity = intensity;
  if (source) form.source = source;
  return form;
}

/** The query string for `form` (without `?`); the default window is left out. */
export function searchFromForm(form: SignalFilterForm): string {
  const params = new URLSearchParams();
  if (form.window !== DEFAULT_SIGNAL_WINDOW) params.set('window', form.window);
  if (form.window === 'custom') {
    if (form.since) params.set('since', form.since);
    if (form.until) params.set('until', form.until);
  }
  for (const key of ['agent', 'hook', 'intensity', 'source'] as const) {
    const value = form[key];
    if (value) params.set(key, value);
  }
  return params.toString();
}

/** The API filters for `form` at `nowMs`: a sliding window ends now, a custom one is taken as is. */
export function resolveFilters(form: SignalFilterForm, nowMs: number): SignalFilters {
  const filters: SignalFilters = {};
  if (form.window === 'custom') {
    if (form.since) filters.since = form.since;
    if (form.until) filters.until = form.until;
  } else {
    filters.since = new Date(nowMs - SIGNAL_WINDOWS[form.window]).toISOString();
  }
  if (form.agent) filters.agent = form.agent;
  if (form.hook) filters.hook = form.hook;
  if (form.intensity) filters.intensity = form.intensity;
  if (form.source) filters.source = form.source;
  return filters;
}

/** The value of an `<input type="datetime-local">` for an ISO time, in the browser's time zone. */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** The ISO time of an `<input type="datetime-local">` value (browser time zone), or undefined. */
export function fromLocalInput(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
