import type { Metadata } from 'next';
import { GrantsView } from './grants-view';

export const metadata: Metadata = { title: 'Session grants' };

export default function GrantsPage() {
  return <GrantsView />;
}
