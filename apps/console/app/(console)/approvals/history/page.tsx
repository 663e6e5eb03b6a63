import type { Metadata } from 'next';
import { HistoryView } from './history-view';

export const metadata: Metadata = { title: 'Approvals history' };

export default function ApprovalsHistoryPage() {
  return <HistoryView />;
}
