/**
 * A JSON value, indented, shown whole: long lines wrap, and hidden characters and long whitespace
 * runs are drawn as markers (src/lib/view/visible-json.ts), so nothing an agent wrote sits out of
 * sight past a scroll. Without markers the text is the value's indented JSON.
 */
import { useMemo } from 'react';
import { visibleJson } from '@/lib/view/visible-json';
import { Pieces } from './visible-text';

export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  const { pieces } = useMemo(() => visibleJson(value), [value]);
  return (
    <pre className="json-block" aria-label={label} tabIndex={0}>
      <Pieces pieces={pieces} />
    </pre>
  );
}
