/** A time on screen: relative text, the exact UTC time in a tooltip and in `dateTime`. */
import { formatAgo, formatTimestamp } from '@/lib/view/format';

export function Ago({ at, now }: { at: string; now: number }) {
  return (
    <time dateTime={at} title={formatTimestamp(at)}>
      {formatAgo(at, now)}
    </time>
  );
}

export function Timestamp({ at }: { at: string }) {
  return <time dateTime={at}>{formatTimestamp(at)}</time>;
}
