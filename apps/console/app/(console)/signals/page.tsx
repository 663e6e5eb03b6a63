import type { Metadata } from 'next';
import { Suspense } from 'react';
import { Loading } from '@/components/states';
import { SignalsView } from './signals-view';

export const metadata: Metadata = { title: 'Signal log' };

export default function SignalsPage() {
  return (
    <Suspense fallback={<Loading label="Loading the signal log" />}>
      <SignalsView />
    </Suspense>
  );
}
