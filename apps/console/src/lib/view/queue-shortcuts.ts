/**
 * The approval queue's keyboard shortcuts: which key does what, and when keys are left alone.
 * Kept apart from the page so the rules (never while typing, never with Ctrl/Alt/Meta) are tested
 * without a browser.
 */

export type QueueAction = 'next' | 'previous' | 'approve' | 'reject' | 'help';

/** The list the page shows (and docs/console.md repeats), in the order an operator uses them. */
export const QUEUE_SHORTCUTS: readonly { keys: string; action: QueueAction; does: string }[] = [
  { keys: 'j', action: 'next', does: 'next card' },
  { keys: 'k', action: 'previous', does: 'previous card' },
  { keys: 'a', action: 'approve', does: 'approve the selected card (not one warning of hidden characters: read it, then use its button)' },
  { keys: 'r', action: 'reject', does: 'reject the selected card: the cursor goes to its feedback field; type why, then Ctrl+Enter (⌘+Enter) rejects' },
  { keys: '?', action: 'help', does: 'show or hide this list' },
];

const BY_KEY: ReadonlyMap<string, QueueAction> = new Map(QUEUE_SHORTCUTS.map((shortcut) => [shortcut.keys, shortcut.action]));

/** What the key event is, as far as these rules care (a KeyboardEvent fits). */
export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  isComposing?: boolean;
  defaultPrevented?: boolean;
}

/** What the event's target is (an Element fits). */
export interface TargetLike {
  tagName?: string;
  isContentEditable?: boolean;
  getAttribute?(name: string): string | null;
}

const TYPING_TAGS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

/** True when keys typed at `target` are text (form fields, editable content): shortcuts stay off. */
export function isTypingTarget(target: TargetLike | null | undefined): boolean {
  if (!target) return false;
  if (target.isContentEditable) return true;
  if (target.tagName !== undefined && TYPING_TAGS.has(target.tagName.toUpperCase())) return true;
  const role = target.getAttribute?.('role');
  return role === 'textbox' || role === 'combobox' || role === 'searchbox';
}

/**
 * The queue action for a key press, or `null` to let the browser have it: while typing, with a
 * modifier other than Shift (browser and screen-reader shortcuts), or during IME composition.
 */
export function queueShortcut(event: KeyLike, target: TargetLike | null | undefined): QueueAction | null {
  if (event.defaultPrevented || event.isComposing || event.ctrlKey || event.metaKey || event.altKey) return null;
  if (isTypingTarget(target)) return null;
  return BY_KEY.get(event.key) ?? null;
}

/** The id to select after `action` among `ids` (top to bottom), from `current` (null: none yet). */
export function moveSelection(ids: readonly string[], current: string | null, action: 'next' | 'previous'): string | null {
  const at = current === null ? -1 : ids.indexOf(current);
  if (at === -1) return (action === 'next' ? ids[0] : ids[ids.length - 1]) ?? null;
  const next = action === 'next' ? Math.min(ids.length - 1, at + 1) : Math.max(0, at - 1);
  return ids[next] ?? null;
}
