import type { Metadata } from 'next';
import { HookView } from './hook-view';

export async function generateMetadata({ params }: PageProps<'/hooks/[hookId]'>): Promise<Metadata> {
  const { hookId } = await params;
  return { title: `Hook ${decodeURIComponent(hookId).slice(0, 8)}` };
}

export default async function HookPage({ params }: PageProps<'/hooks/[hookId]'>) {
  const { hookId } = await params;
  return <HookView hookId={decodeURIComponent(hookId)} />;
}
