import { Loading } from '../../src/components/states';

export default function ConsoleLoading() {
  return <Loading label="Loading" />;
}
