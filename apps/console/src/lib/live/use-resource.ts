'use client';
/**
 * The one data hook of the console: loads a snapshot through the API, re-reads it after every
 * live `ready` and (debounced) after the live events that concern it, and lets a view patch it in
 * place from an event. No polling: nothing is fetched unless something said it changed.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { OperatorLiveEvent } from '@ahp/protocol';
import { useLive, useLiveEvents } from './live-provider';

export interface Resource<T> {
  /** `loading` until the first answer; then `ready` (data) or `error` (no data yet). */
  status: 'loading' | 'ready' | 'error';
  data: T | undefined;
  /** The last failure; with `data` present it means the shown data could not be refreshed. */
  error: Error | undefined;
  reload(): void;
  /** Patches the data in place (e.g. from a live event). */
  mutate(update: (data: T) => T): void;
}

export interface ResourceOptions {
  /** Live events after which the snapshot is re-read. */
  refreshOn?: (event: OperatorLiveEvent) => boolean;
  /**
   * Events within this long are coalesced into one re-read.
   * @defaultValue 300
   */
  debounceMs?: number;
}

/** Loads `load()` for `key` (change the key to load something else). */
export function useResource<T>(key: string, load: (signal: AbortSignal) => Promise<T>, options: ResourceOptions = {}): Resource<T> {
  const { generation } = useLive();
  const [state, setState] = useState<{ key: string; data: T | undefined; error: Error | undefined; done: boolean }>({ key, data: undefined, error: undefined, done: false });
  const [tick, setTick] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  const refreshOn = useRef(options.refreshOn);
  refreshOn.current = options.refreshOn;
  const debounceMs = options.debounceMs ?? 300;

  useEffect(() => {
    const controller = new AbortController();
    loader
      .current(controller.signal)
      .then((data) => {
        if (!controller.signal.aborted) setState({ key, data, error: undefined, done: true });
      })
      .catch((error: unknown) => {
        if (controller.signal.aborted) return;
        setState((previous) => ({ key, data: previous.key === key ? previous.data : undefined, error: error instanceof Error ? error : new Error(String(error)), done: true }));
      });
    return () => controller.abort();
  }, [key, generation, tick]);

  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useLiveEvents((event) => {
    if (event.kind === 'ready' || !refreshOn.current?.(event)) return;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setTick((value) => value + 1), debounceMs);
  });

  const reload = useCallback(() => setTick((value) => value + 1), []);
  const mutate = useCallback((update: (data: T) => T) => {
    setState((previous) => (previous.data === undefined ? previous : { ...previous, data: update(previous.data) }));
  }, []);

  const current = state.key === key ? state : { key, data: undefined, error: undefined, done: false };
  const status = current.data !== undefined ? 'ready' : current.done && current.error ? 'error' : 'loading';
  return { status, data: current.data, error: current.error, reload, mutate };
}

/**
 * The current time on the gateway's clock (this browser's, corrected by the offset the live feed
 * measured), re-read every `everyMs`: ages and deadlines on screen are then right even when the
 * operator's clock is not.
 */
export function useNow(everyMs = 10_000): number {
  const { clockOffsetMs } = useLive();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(id);
  }, [everyMs]);
  return now + clockOffsetMs;
}
