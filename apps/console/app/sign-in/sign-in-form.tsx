'use client';
import { useState, type FormEvent } from 'react';
import { isApiError } from '@/lib/api/client';
import { signIn } from '@/lib/api/session';
import { describeError } from '@/components/states';

export function SignInForm({ next }: { next: string }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (token.trim() === '') {
      setError('Paste your operator token.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await signIn(token);
      window.location.assign(next);
    } catch (failure) {
      setBusy(false);
      setError(isApiError(failure, 'E_UNAUTHORIZED') ? 'The gateway does not know this token (or it was revoked).' : describeError(failure instanceof Error ? failure : new Error(String(failure))));
    }
  };

  return (
    <form className="form card" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor="token">Operator token</label>
      <input
        id="token"
        name="token"
        type="password"
        autoComplete="current-password"
        spellCheck={false}
        value={token}
        onChange={(event) => setToken(event.target.value)}
        aria-invalid={error !== null}
        aria-describedby={error ? 'token-error' : undefined}
        required
      />
      {error ? (
        <p id="token-error" className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
