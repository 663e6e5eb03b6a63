'use client';
/** A page that failed to render: say so, and offer to try again (the rest of the console keeps working). */
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <h1>This page failed</h1>
      <p>{error.message || 'Something went wrong while showing this page.'}</p>
      <button type="button" className="button" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
