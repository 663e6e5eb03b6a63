import type { Metadata } from 'next';
import { AgentView } from './agent-view';

export async function generateMetadata({ params }: PageProps<'/agents/[agentId]'>): Promise<Metadata> {
  const { agentId } = await params;
  return { title: `Agent ${decodeURIComponent(agentId)}` };
}

export default async function AgentPage({ params }: PageProps<'/agents/[agentId]'>) {
  const { agentId } = await params;
  return <AgentView agentId={decodeURIComponent(agentId)} />;
}
