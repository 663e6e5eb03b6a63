/** The three views of approvals: what waits now, what was decided, and the session grants still in force. */
import Link from 'next/link';

const TABS = [
  { href: '/approvals', label: 'Queue' },
  { href: '/approvals/history', label: 'History' },
  { href: '/approvals/grants', label: 'Grants' },
] as const;

export function ApprovalsTabs({ current }: { current: (typeof TABS)[number]['href'] }) {
  return (
    <nav className="tabs" aria-label="Approvals">
      {TABS.map((tab) => (
        <Link key={tab.href} href={tab.href} className={tab.href === current ? 'tab tab-current' : 'tab'} aria-current={tab.href === current ? 'page' : undefined}>
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
