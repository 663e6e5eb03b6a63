'use client';
/**
 * One live feed per browser tab: an `EventSource` on `/api/live` (the gateway's SSE stream,
 * proxied with the session's token). Views subscribe to its events and re-read their snapshots
 * whenever a `ready` arrives (after every (re)connection), so nothing is missed while
 * disconnected. When the feed fails, the status turns `down` (the banner shows) and the provider
 * reconnects by itself with backoff; the next `ready` turns it `live` again. A feed that goes
 * silent without failing (no heartbeat for a few intervals: a hung gateway, a half-open
 * connection) turns `stalled`, is closed and reconnected the same way. The events' server
 * stamps also give the gateway's clock, so ages on screen do not depend on this browser's.
 *
 * Views say which agents' rows and timelines they show (`useFollowAgents`): the feed follows only
 * those (`?agents=`, the union of what mounted views follow; every agent when no view said, when
 * one of them asks for all or the union is too long), so a page of a large fleet does not receive
 * every agent's row.
 * A change of the union reopens the feed, which starts with `ready`, so views re-read.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useRouter } from 'next/navigation';
import type { OperatorLiveEvent } from '@ahp/protocol';
import { callJson } from '@/lib/api/client';
import { LIVE_EVENT_KINDS, parseLiveEvent } from './live-events';
import { livePath, type AgentInterest } from './live-path';
import { clockOffsetMs, DEFAULT_HEARTBEAT_MS, isStalled } from './feed-health';
import { reconnectDelayMs } from './reconnect';

export type LiveStatus = 'connecting' | 'live' | 'stalled' | 'down';

/** How often the provider checks that the feed is still talking. */
const WATCHDOG_MS = 1_000;
/** Clock offsets closer than this to the one in use are not worth a re-render. */
const CLOCK_OFFSET_STEP_MS = 1_000;
export type LiveListener = (event: OperatorLiveEvent) => void;
/** How long the provider waits for views to settle their interests before it reopens the feed. */
const FOLLOW_SETTLE_MS = 250;
/**
 * Fewest ms between two reopenings for a change of interests: each one makes every view re-read,
 * and a page of a busy fleet sorted by activity changes its rows often. Rows that enter a page in
 * between are updated by the page's own periodic re-read.
 */
const FOLLOW_REOPEN_MS = 5_000;

interface LiveContextValue {
  status: LiveStatus;
  /** Increases with every `ready`: views re-read their snapshots when it changes. */
  generation: number;
  /** The gateway's clock minus this browser's, in ms (0 until the feed said). */
  clockOffsetMs: number;
  subscribe(listener: LiveListener): () => void;
  /** Registers a view's interest in agents while it is shown; returns its withdrawal. */
  follow(interest: AgentInterest): () => void;
}

const LiveContext = createContext<LiveContextValue>({
  status: 'connecting',
  generation: 0,
  clockOffsetMs: 0,
  subscribe: () => () => undefined,
  follow: () => () => undefined,
});

/** A probe that only matters for its side effect: a 401 sends the browser to the sign-in page. */
const AnySchema = { safeParse: (value: unknown) => ({ success: true as const, data: value }) };

export function LiveProvider({ children, refreshOnReady = false }: { children: ReactNode; refreshOnReady?: boolean }) {
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [generation, setGeneration] = useState(0);
  const [offset, setOffset] = useState(0);
  const listeners = useRef(new Set<LiveListener>());
  const router = useRouter();
  const refresh = useRef(refreshOnReady);
  refresh.current = refreshOnReady;
  const interests = useRef(new Map<symbol, AgentInterest>());
  /** The path of the open (or opening) feed; every open reads the interests of that moment. */
  const openedPath = useRef<string | undefined>(undefined);
  /** Bumped to reopen the feed for new interests. */
  const [reopen, setReopen] = useState(0);
  const settle = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reopenedAt = useRef(0);
  const interestsChanged = useCallback(() => {
    clearTimeout(settle.current);
    const wait = Math.max(FOLLOW_SETTLE_MS, reopenedAt.current + FOLLOW_REOPEN_MS - Date.now());
    settle.current = setTimeout(() => {
      if (openedPath.current === undefined || livePath(interests.current.values()) === openedPath.current) return;
      reopenedAt.current = Date.now();
      setReopen((value) => value + 1);
    }, wait);
  }, []);
  useEffect(() => () => clearTimeout(settle.current), []);

  useEffect(() => {
    let source: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let disposed = false;
    let lastEventAt = Date.now();
    let heartbeatMs = DEFAULT_HEARTBEAT_MS;
    // A feed reopened for new interests replaces a live one: it is watched for a stall at once
    // (its status stays live meanwhile), so a gateway that hangs during the switch is noticed.
    let live = reopen > 0;

    const retryLater = () => {
      source?.close();
      source = null;
      if (disposed || timer !== undefined) return;
      timer = setTimeout(() => {
        timer = undefined;
        // An expired session looks like a dead feed to EventSource (it cannot see the 401): ask once.
        void callJson('/api/operator/me', AnySchema).catch(() => undefined);
        if (!disposed) open();
      }, reconnectDelayMs(attempt++, Math.random()));
    };

    const open = () => {
      // Views' effects run before this one, so the first open already knows their interests.
      const path = livePath(interests.current.values());
      openedPath.current = path;
      const next = new EventSource(path);
      source = next;
      lastEventAt = Date.now();
      for (const kind of LIVE_EVENT_KINDS) {
        next.addEventListener(kind, (message) => {
          if (source !== next) return;
          const event = parseLiveEvent(kind, String((message as MessageEvent<unknown>).data));
          if (event === null) return;
          lastEventAt = Date.now();
          if (event.kind === 'ready' || event.kind === 'heartbeat') {
            const measured = clockOffsetMs(event.at, lastEventAt);
            if (measured !== undefined) setOffset((current) => (Math.abs(measured - current) < CLOCK_OFFSET_STEP_MS ? current : measured));
          }
          if (event.kind === 'heartbeat') {
            heartbeatMs = event.interval_ms;
            return;
          }
          if (event.kind === 'ready') {
            attempt = 0;
            live = true;
            setStatus('live');
            setGeneration((value) => value + 1);
            if (refresh.current) router.refresh();
          }
          for (const listener of listeners.current) listener(event);
        });
      }
      next.onerror = () => {
        if (source !== next) return;
        live = false;
        setStatus('down');
        // CONNECTING: the browser retries by itself. CLOSED (the console answered an error): we do.
        if (next.readyState === EventSource.CLOSED) retryLater();
      };
    };

    // Only a live feed can stall: while connecting or down, EventSource and retryLater are at work.
    const watchdog = setInterval(() => {
      if (!live || source === null || !isStalled(lastEventAt, Date.now(), heartbeatMs)) return;
      live = false;
      setStatus('stalled');
      retryLater();
    }, WATCHDOG_MS);

    open();
    return () => {
      disposed = true;
      clearInterval(watchdog);
      if (timer !== undefined) clearTimeout(timer);
      source?.close();
    };
  }, [router, reopen]);

  const subscribe = useCallback((listener: LiveListener) => {
    listeners.current.add(listener);
    return () => {
      listeners.current.delete(listener);
    };
  }, []);

  const follow = useCallback(
    (interest: AgentInterest) => {
      const token = Symbol('interest');
      interests.current.set(token, interest);
      interestsChanged();
      return () => {
        interests.current.delete(token);
        interestsChanged();
      };
    },
    [interestsChanged],
  );

  const value = useMemo(() => ({ status, generation, clockOffsetMs: offset, subscribe, follow }), [status, generation, offset, subscribe, follow]);
  return <LiveContext.Provider value={value}>{children}</LiveContext.Provider>;
}

/** The live feed's status and generation, and its subscribe function. */
export function useLive(): LiveContextValue {
  return useContext(LiveContext);
}

/** Calls `listener` for every live event while mounted (the latest `listener` is used). */
export function useLiveEvents(listener: LiveListener): void {
  const { subscribe } = useLive();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => subscribe((event) => latest.current(event)), [subscribe]);
}

/**
 * While mounted, the feed carries the rows and timelines of `agents` (ids, or `'all'`); views that
 * show agents must say which, or the feed leaves their rows out. The ids may change freely: equal
 * lists keep the feed as it is.
 */
export function useFollowAgents(agents: AgentInterest): void {
  const { follow } = useLive();
  const key = agents === 'all' ? 'all' : [...new Set(agents)].sort().join(',');
  useEffect(() => follow(key === 'all' ? 'all' : key === '' ? [] : key.split(',')), [follow, key]);
}
