import { describe, expect, it } from 'vitest';
import { isTypingTarget, moveSelection, queueShortcut, type KeyLike } from './queue-shortcuts';

const key = (k: string, extra: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...extra });
const body = { tagName: 'BODY', isContentEditable: false, getAttribute: () => null };

describe('queueShortcut', () => {
  it('maps j, k, a, r and ? on the page', () => {
    expect(['j', 'k', 'a', 'r', '?'].map((k) => queueShortcut(key(k), body))).toEqual(['next', 'previous', 'approve', 'reject', 'help']);
    expect(queueShortcut(key('x'), body)).toBeNull();
    expect(queueShortcut(key('J'), body)).toBeNull();
  });

  it('stays off while typing in a field, in editable content or a textbox role', () => {
    for (const tagName of ['INPUT', 'TEXTAREA', 'SELECT', 'textarea']) expect(queueShortcut(key('a'), { tagName })).toBeNull();
    expect(queueShortcut(key('a'), { tagName: 'DIV', isContentEditable: true })).toBeNull();
    expect(queueShortcut(key('r'), { tagName: 'DIV', getAttribute: (name) => (name === 'role' ? 'textbox' : null) })).toBeNull();
    expect(isTypingTarget({ tagName: 'BUTTON' })).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });

  it('leaves modified keys, composition and handled events to the browser', () => {
    expect(queueShortcut(key('a', { ctrlKey: true }), body)).toBeNull();
    expect(queueShortcut(key('r', { metaKey: true }), body)).toBeNull();
    expect(queueShortcut(key('j', { altKey: true }), body)).toBeNull();
    expect(queueShortcut(key('a', { isComposing: true }), body)).toBeNull();
    expect(queueShortcut(key('a', { defaultPrevented: true }), body)).toBeNull();
  });
});

describe('moveSelection', () => {
  const ids = ['r1', 'r2', 'r3'];
  it('starts at the top (j) or the bottom (k), then moves and stops at the ends', () => {
    expect(moveSelection(ids, null, 'next')).toBe('r1');
    expect(moveSelection(ids, null, 'previous')).toBe('r3');
    expect(moveSelection(ids, 'r1', 'next')).toBe('r2');
    expect(moveSelection(ids, 'r3', 'next')).toBe('r3');
    expect(moveSelection(ids, 'r1', 'previous')).toBe('r1');
  });

  it('starts over when the selected card left the queue, and selects nothing in an empty one', () => {
    expect(moveSelection(ids, 'gone', 'next')).toBe('r1');
    expect(moveSelection([], 'r1', 'next')).toBeNull();
  });
});
