'use client';
/**
 * The frame of every signed-in page: skip link, navigation (with the number of pending
 * approvals), who is signed in, sign out, and the connection banner.
 */
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useState, type ReactNode } from 'react';
import type { OperatorIdentity } from '@ahp/protocol';
import { fetchApprovalQueue } from '@/lib/api/requests';
import { signOut } from '@/lib/api/session';
import { LiveProvider } from '@/lib/live/live-provider';
import { useResource } from '@/lib/live/use-resource';
import { ConnectionBanner, LiveIndicator } from './connection-banner';
import { OperatorProvider, scopeLabel } from './operator-context';

const LINKS = [
  { href: '/', label: 'Fleet' },
  { href: '/approvals', label: 'Approvals' },
  { href: '/signals', label: 'Signals' },
  { href: '/config', label: 'Configuration' },
  { href: '/health', label: 'Health' },
] as const;

function isCurrent(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' || pathname.startsWith('/agents/') : pathname === href || pathname.startsWith(`${href}/`);
}

function PendingCount() {
  const queue = useResource('nav-queue', fetchApprovalQueue, { refreshOn: (event) => event.kind === 'request', debounceMs: 500 });
  const count = queue.data?.length ?? 0;
  if (count === 0) return null;
  return (
    <span className="nav-count" aria-label={`${count} pending`}>
      {count}
    </span>
  );
}

function Nav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="nav">
      <ul>
        {LINKS.map((link) => (
          <li key={link.href}>
            <Link href={link.href} aria-current={isCurrent(pathname, link.href) ? 'page' : undefined}>
              {link.label}
              {link.href === '/approvals' ? <PendingCount /> : null}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SignOut() {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="button button-quiet"
      disabled={busy}
      onClick={() => {
        setBusy(true);
        void signOut()
          .catch(() => undefined)
          .finally(() => window.location.assign('/sign-in'));
      }}
    >
      Sign out
    </button>
  );
}

export function AppShell({ operator, sessionProblem, children }: { operator: OperatorIdentity | null; sessionProblem?: string; children: ReactNode }) {
  return (
    <OperatorProvider operator={operator}>
      <LiveProvider refreshOnReady={operator === null}>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="topbar">
          <div className="topbar-inner">
            <Link href="/" className="brand">
              AHP <span className="muted">ops console</span>
            </Link>
            <Nav />
            <div className="whoami">
              <LiveIndicator />
              {operator ? (
                <span>
                  <span className="visually-hidden">Signed in as </span>
                  <strong>{operator.name}</strong> <span className={`badge badge-role-${operator.role}`}>{operator.role}</span>
                  {scopeLabel(operator) === undefined ? null : <span className="muted scope-label"> {scopeLabel(operator)}</span>}
                </span>
              ) : (
                <span className="muted">operator unknown</span>
              )}
              <SignOut />
            </div>
          </div>
        </header>
        <ConnectionBanner sessionProblem={sessionProblem} />
        <main id="main" className="main" tabIndex={-1}>
          {children}
        </main>
      </LiveProvider>
    </OperatorProvider>
  );
}
