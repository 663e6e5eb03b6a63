/**
 * Every signed-in page: the session is checked with the gateway on each load (a revoked token or
 * a changed role takes effect at once); without one, the operator is sent to sign in.
 */
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { AppShell } from '@/components/app-shell';
import { operatorSession } from '@/lib/server/operator-session';

export const dynamic = 'force-dynamic';

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await operatorSession();
  if (session.kind === 'signed-out') redirect('/sign-in');
  return (
    <AppShell operator={session.kind === 'signed-in' ? session.operator : null} {...(session.kind === 'unknown' ? { sessionProblem: session.reason } : {})}>
      {children}
    </AppShell>
  );
}
