import { describe, expect, it } from 'vitest';
import { DEFAULT_SIGNAL_WINDOW, formFromSearch, fromLocalInput, resolveFilters, searchFromForm, toLocalInput } from './signal-filters';

describe('signal filters', () => {
  it('reads valid filters from the URL and drops invalid ones', () => {
    const form = formFromSearch(new URLSearchParams('window=1h&agent=alice&hook=pre-tool-use&intensity=block&source=rules'));
    expect(form).toEqual({ window: '1h', agent: 'alice', hook: 'pre-tool-use', intensity: 'block', source: 'rules' });
    expect(formFromSearch(new URLSearchParams('window=3y&agent=a b&hook=nope&intensity=loud'))).toEqual({ window: DEFAULT_SIGNAL_WINDOW });
  });

  it('keeps a custom range only with window=custom', () => {
    const since = '2026-01-01T10:00:00.000Z';
    expect(formFromSearch(new URLSearchParams(`window=custom&since=${since}&until=garbage`))).toEqual({ window: 'custom', since });
    expect(formFromSearch(new URLSearchParams(`since=${since}`))).toEqual({ window: DEFAULT_SIGNAL_WINDOW });
  });

  it('round-trips through the query string, leaving the default window out', () => {
    const form = { window: DEFAULT_SIGNAL_WINDOW, agent: 'alice', intensity: 'aid' as const };
    expect(searchFromForm(form)).toBe('agent=alice&intensity=aid');
    expect(formFromSearch(new URLSearchParams(searchFromForm(form)))).toEqual(form);
  });

  it('turns a sliding window into a since relative to now', () => {
    const now = Date.parse('2026-01-01T12:00:00.000Z');
    expect(resolveFilters({ window: '1h', agent: 'alice' }, now)).toEqual({ since: '2026-01-01T11:00:00.000Z', agent: 'alice' });
    expect(resolveFilters({ window: 'custom', until: '2026-01-01T11:30:00.000Z' }, now)).toEqual({ until: '2026-01-01T11:30:00.000Z' });
  });

  it('converts datetime-local values both ways', () => {
    const iso = fromLocalInput('2026-01-01T10:30');
    expect(iso).toBeDefined();
    expect(toLocalInput(iso)).toBe('2026-01-01T10:30');
    expect(fromLocalInput('')).toBeUndefined();
    expect(toLocalInput('nonsense')).toBe('');
  });
});
