import { makeError } from '@ahp/protocol';
import { describe, expect, it } from 'vitest';
import { linkNotice } from './link-refusal';

describe('linkNotice', () => {
  it('says who decided a request that was settled already', () => {
    expect(linkNotice(makeError('E_CONFLICT', 'x', { status: 'approved', decided_by: 'op-bob', decided_at: '2026-11-26T07:00:00.000Z' }))).toEqual({
      kind: 'settled',
      title: 'Already approved',
      text: 'op-bob approved it at 2026-11-26T07:00:00.000Z. Nothing was changed by this link.',
    });
    expect(linkNotice(makeError('E_CONFLICT', 'x', { status: 'expired' }))).toMatchObject({ kind: 'settled', title: 'This request expired' });
  });

  it('names each refusal of the link itself', () => {
    expect(linkNotice(makeError('E_FORBIDDEN', 'x', { link: 'expired' })).title).toBe('This link has expired');
    expect(linkNotice(makeError('E_FORBIDDEN', 'x', { link: 'used', used_by: 'op-ada' })).text).toContain('op-ada used it');
    expect(linkNotice(makeError('E_FORBIDDEN', 'x', { link: 'not_yours', required_role: 'admin' })).text).toContain('an admin must use it');
    expect(linkNotice(makeError('E_FORBIDDEN', 'x', { link: 'invalid' })).title).toBe('This link is not valid');
    expect(linkNotice(makeError('E_FORBIDDEN', 'this needs the approver role'))).toEqual({ kind: 'refused', title: 'This link cannot be used', text: 'this needs the approver role' });
  });
});
