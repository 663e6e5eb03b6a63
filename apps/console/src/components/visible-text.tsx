/**
 * Agent-written text with its hidden characters and long whitespace runs drawn as markers
 * (src/lib/view/visible-text.ts), and the warning an approval carries when it has any.
 */
import { useMemo } from 'react';
import type { TextPiece } from '@/lib/view/visible-text';
import { visiblePieces, type HiddenTextReport } from '@/lib/view/visible-text';

/** The pieces as text and marked spans (each marker's tooltip says what it stands for). */
export function Pieces({ pieces }: { pieces: readonly TextPiece[] }) {
  return (
    <>
      {pieces.map((piece, i) =>
        piece.kind === 'text' ? (
          piece.text
        ) : (
          <mark key={i} className={`hidden-mark hidden-mark-${piece.reason}`} title={piece.title} data-hidden-mark={piece.reason}>
            {piece.text}
          </mark>
        ),
      )}
    </>
  );
}

export function VisibleText({ text }: { text: string }) {
  const pieces = useMemo(() => visiblePieces(text), [text]);
  return <Pieces pieces={pieces} />;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** Above an approval whose text has markers: how many, and in which fields; nothing otherwise. */
export function HiddenTextWarning({ report }: { report: HiddenTextReport }) {
  if (report.count === 0) return null;
  return (
    <div className="notice notice-warning hidden-text-warning" role="alert" data-hidden-text-warning={report.count}>
      <p>
        <strong>
          This request contains {plural(report.count, 'hidden or unusual character / long whitespace run', 'hidden or unusual characters / long whitespace runs')} — read it carefully.
        </strong>{' '}
        Each is shown as a marker such as <mark className="hidden-mark">⟦U+202E⟧</mark> or <mark className="hidden-mark">⟦400 spaces⟧</mark> (hover it for what it is); approving approves the exact characters, hidden ones included.
      </p>
      <p>
        In{' '}
        {report.places.map((place, i) => (
          <span key={place.path}>
            {i > 0 ? ', ' : null}
            <code>{place.path}</code>
            {place.count > 1 ? ` (${place.count})` : null}
          </span>
        ))}
        {report.morePlaces > 0 ? ` and ${plural(report.morePlaces, 'more field', 'more fields')}` : null}.
      </p>
    </div>
  );
}
