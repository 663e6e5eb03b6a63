/**
 * The fleet page's search, filters, sort and page, kept in the URL: a reload, the browser's back
 * and forward, and a shared link all open the same view. Each value is checked with the fleet
 * query's own schemas; one that does not fit is dropped (its default applies), so the page never
 * asks the gateway something it must refuse.
 */
import { FleetQuerySchema, MAX_FLEET_PAGE, type FleetQuery } from '@ahp/protocol';

/** Rows per page the console shows (the API allows up to MAX_FLEET_PAGE). */
export const FLEET_PAGE_SIZE = Math.min(100, MAX_FLEET_PAGE);

/** The filter fields the URL carries, in the order they are written. */
const FILTER_KEYS = ['q', 'status', 'team', 'gateway', 'client', 'decision'] as const;

/** What the page shows: the filters, the sort, and which page (0-based). */
export type FleetView = Pick<FleetQuery, (typeof FILTER_KEYS)[number]> & Pick<FleetQuery, 'sort' | 'order'> & { page: number };

export const DEFAULT_FLEET_VIEW: FleetView = { sort: 'agent', order: 'asc', page: 0 };

/** The order a sort reads best in: the most recently seen first, everything else A→Z. */
export function defaultOrder(sort: FleetQuery['sort']): FleetQuery['order'] {
  return sort === 'last_seen' ? 'desc' : 'asc';
}

/** Reads the view from a query string; anything that does not parse is left at its default. */
export function fleetViewFromSearch(params: URLSearchParams): FleetView {
  const shape = FleetQuerySchema.shape;
  const view: FleetView = { ...DEFAULT_FLEET_VIEW };
  for (const key of FILTER_KEYS) {
    const raw = params.get(key)?.trim();
    if (!raw) continue;
    const parsed = shape[key].safeParse(raw);
    if (parsed.success && parsed.data !== undefined) Object.assign(view, { [key]: parsed.data });
  }
  const sort = shape.sort.safeParse(params.get('sort') ?? undefined);
  if (sort.success) view.sort = sort.data;
  const order = shape.order.safeParse(params.get('order') ?? undefined);
  view.order = params.has('order') && order.success ? order.data : defaultOrder(view.sort);
  const page = Number(params.get('page') ?? '1');
  view.page = Number.isSafeInteger(page) && page >= 1 ? page - 1 : 0;
  return view;
}

/** The query string for `view` (without `?`): defaults are left out, pages count from 1. */
export function searchFromFleetView(view: FleetView): string {
  const params = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = view[key];
    if (value) params.set(key, value);
  }
  if (view.sort !== DEFAULT_FLEET_VIEW.sort) params.set('sort', view.sort);
  if (view.order !== defaultOrder(view.sort)) params.set('order', view.order);
  if (view.page > 0) params.set('page', String(view.page + 1));
  return params.toString();
}

/** The operator API's query for `view`. */
export function fleetQueryOf(view: FleetView): FleetQuery {
  const query: FleetQuery = { sort: view.sort, order: view.order, offset: view.page * FLEET_PAGE_SIZE, limit: FLEET_PAGE_SIZE };
  for (const key of FILTER_KEYS) {
    const value = view[key];
    if (value) Object.assign(query, { [key]: value });
  }
  return query;
}

/** Whether any filter (not the sort or the page) narrows the fleet. */
export function isFiltered(view: FleetView): boolean {
  return FILTER_KEYS.some((key) => view[key] !== undefined && view[key] !== '');
}
