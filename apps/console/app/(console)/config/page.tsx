import type { Metadata } from 'next';
import { ConfigView } from './config-view';

export const metadata: Metadata = { title: 'Configuration' };

export default function ConfigPage() {
  return <ConfigView />;
}
