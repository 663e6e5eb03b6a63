import { Loading } from '@/components/states';

export default function ConsoleLoading() {
  return <Loading label="Loading" />;
}
