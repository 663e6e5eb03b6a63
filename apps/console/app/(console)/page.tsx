import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Loading } from '@/components/states';
import { FleetView } from './fleet-view';

export const metadata: Metadata = { title: 'Fleet' };

export default function FleetPage() {
  // The view reads its filters from the URL (useSearchParams): that part renders in the browser.
  return (
    <Suspense fallback={<Loading label="Loading the fleet" />}>
      <FleetView />
    </Suspense>
  );
}
