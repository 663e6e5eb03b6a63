/**
 * `/decide#<token>`: where a notification's Approve / Reject link lands. Outside the signed-in
 * layout on purpose: the page keeps the token (from the fragment, which no server ever sees)
 * in the tab's sessionStorage before anything can send the operator to sign in, so the link
 * still works after signing in (docs/notifications.md "Decision links").
 */
import type { Metadata } from 'next';
import { DecideView } from './decide-view';

export const metadata: Metadata = { title: 'Decide', referrer: 'no-referrer' };

export default function DecidePage() {
  return (
    <main className="main narrow" id="main">
      <DecideView />
    </main>
  );
}
