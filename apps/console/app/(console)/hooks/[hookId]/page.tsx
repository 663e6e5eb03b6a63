import type { Metadata } from 'next';
import { consoleEnv } from '@/lib/server/console-env';
import { HookView } from './hook-view';

export async function generateMetadata({ params }: PageProps<'/hooks/[hookId]'>): Promise<Metadata> {
  const { hookId } = await params;
  return { title: `Hook ${decodeURIComponent(hookId).slice(0, 8)}` };
}

export default async function HookPage({ params }: PageProps<'/hooks/[hookId]'>) {
  const { hookId } = await params;
  // The tracing UI's address template is server configuration (AHP_TRACE_URL); the view only fills it in.
  const { traceUrl } = consoleEnv();
  return <HookView hookId={decodeURIComponent(hookId)} {...(traceUrl === undefined ? {} : { traceUrl })} />;
}
