/**
 * The three states every view has besides its data: loading, failed, and nothing to show. Each
 * is announced to screen readers (status / alert) and says what to do next.
 */
import type { ReactNode } from 'react';
import { ApiError } from '@/lib/api/client';

export function Loading({ label }: { label: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}…
    </p>
  );
}

/** What went wrong, in words an operator can act on. */
export function describeError(error: Error): string {
  if (error instanceof ApiError) {
    switch (error.error.code) {
      case 'E_UNAVAILABLE':
        return `The gateway is unreachable. ${error.error.message}`;
      case 'E_FORBIDDEN':
        return `Your role does not allow this. ${error.error.message}`;
      case 'E_UNAUTHORIZED':
        return 'Your session has ended; sign in again.';
      default:
        return error.error.message;
    }
  }
  return error.message;
}

export function ErrorState({ title, error, onRetry }: { title: string; error: Error; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <p>
        <strong>{title}</strong> {describeError(error)}
      </p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** Shown above data that could not be refreshed. */
export function StaleNotice({ error, onRetry }: { error: Error; onRetry: () => void }) {
  return (
    <div className="notice notice-warning" role="status">
      Showing the last data received; refreshing failed: {describeError(error)}{' '}
      <button type="button" className="link-button" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children ? <p>{children}</p> : null}
    </div>
  );
}
