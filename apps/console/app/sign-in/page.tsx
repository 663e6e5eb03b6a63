import type { Metadata } from 'next';
import { safeNextPath } from '@/lib/view/safe-next';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in' };

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = safeNextPath(params['next']);
  return (
    <main className="main narrow" id="main">
      <h1>Sign in to the AHP ops console</h1>
      {params['expired'] ? (
        <p className="notice notice-warning" role="status">
          Your session ended. Sign in again to continue.
        </p>
      ) : null}
      <SignInForm next={next} />
      <section aria-labelledby="where-token" className="help">
        <h2 id="where-token">Where is my token?</h2>
        <p>
          Operator tokens are given out by whoever runs the control plane: the gateway keeps only their SHA-256 in its operator tokens file
          (<code>AHP_OPERATOR_TOKENS_FILE</code>). On a machine started with <code>npm start</code>, an admin token is in <code>.data/operator.token</code>.
        </p>
        <p>The token stays in an httpOnly cookie of this console; the page itself never sees it again.</p>
      </section>
    </main>
  );
}
