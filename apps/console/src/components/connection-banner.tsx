'use client';
/** The live feed's health, shown above every page: a clear alert while the gateway is unreachable, nothing while all is well. */
import { useLive } from '@/lib/live/live-provider';

export function ConnectionBanner({ sessionProblem }: { sessionProblem?: string | undefined }) {
  const { status } = useLive();
  if (status === 'down') {
    return (
      <div className="banner banner-down" role="alert">
        <strong>Gateway unreachable — reconnecting…</strong> Live updates are paused; what you see may be out of date. This clears by itself when the gateway is back.
      </div>
    );
  }
  if (status === 'stalled') {
    return (
      <div className="banner banner-down" role="alert">
        <strong>Live updates stalled — reconnecting…</strong> The gateway stopped answering; what you see may be out of date. This clears by itself when the feed is back.
      </div>
    );
  }
  if (sessionProblem && status !== 'live') {
    return (
      <div className="banner banner-down" role="alert">
        <strong>Gateway unreachable — reconnecting…</strong> {sessionProblem}.
      </div>
    );
  }
  return null;
}

const LIVE_LABEL = { connecting: 'Connecting…', live: 'Live', stalled: 'Stalled', down: 'Reconnecting…' } as const;

/** A small "Live" mark in the top bar; `data-live` carries the status for tests and styling. */
export function LiveIndicator() {
  const { status } = useLive();
  return (
    <span className={`live-indicator live-${status}`} data-live={status} title="Live updates from the gateway">
      <span aria-hidden="true">●</span> {LIVE_LABEL[status]}
    </span>
  );
}
