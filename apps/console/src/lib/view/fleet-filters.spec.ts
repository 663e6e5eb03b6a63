import { describe, expect, it } from 'vitest';
import { DEFAULT_FLEET_VIEW, FLEET_PAGE_SIZE, fleetQueryOf, fleetViewFromSearch, isFiltered, searchFromFleetView } from './fleet-filters';

const view = (qs: string) => fleetViewFromSearch(new URLSearchParams(qs));

describe('fleet filters in the URL', () => {
  it('an empty query string is the default view, written back as nothing', () => {
    expect(view('')).toEqual(DEFAULT_FLEET_VIEW);
    expect(searchFromFleetView(DEFAULT_FLEET_VIEW)).toBe('');
    expect(isFiltered(DEFAULT_FLEET_VIEW)).toBe(false);
  });

  it('round-trips every filter, the sort, the order and the page', () => {
    const qs = 'q=build&status=working&team=red&gateway=gw-1&client=sdk&decision=awaiting_approval&sort=team&order=desc&page=3';
    const read = view(qs);
    expect(read).toEqual({ q: 'build', status: 'working', team: 'red', gateway: 'gw-1', client: 'sdk', decision: 'awaiting_approval', sort: 'team', order: 'desc', page: 2 });
    expect(searchFromFleetView(read)).toBe(qs);
    expect(isFiltered(read)).toBe(true);
  });

  it('takes the sort’s natural order when none is given, and leaves it out when written', () => {
    expect(view('sort=last_seen').order).toBe('desc');
    expect(searchFromFleetView(view('sort=last_seen'))).toBe('sort=last_seen');
    expect(searchFromFleetView(view('sort=last_seen&order=asc'))).toBe('sort=last_seen&order=asc');
  });

  it('drops what the gateway would refuse instead of sending it', () => {
    expect(view('status=sleeping&decision=maybe&sort=name&order=up&page=-2&team=' + 'x'.repeat(300) + '&q=' + 'y'.repeat(101))).toEqual(DEFAULT_FLEET_VIEW);
    expect(view('page=abc').page).toBe(0);
  });

  it('turns a view into the API query: the page becomes an offset', () => {
    expect(fleetQueryOf(view('team=red&page=2'))).toEqual({ team: 'red', sort: 'agent', order: 'asc', offset: FLEET_PAGE_SIZE, limit: FLEET_PAGE_SIZE });
  });
});
