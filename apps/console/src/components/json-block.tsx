/** A JSON value, indented, in a scrollable block with a label for screen readers. */
import { prettyJson } from '@/lib/view/json-input';

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <pre className="json-block" aria-label={label} tabIndex={0}>
      {prettyJson(value)}
    </pre>
  );
}
