/**
 * Which gateway paths the console's proxy (`/api/operator/[...path]`) forwards to. The list is
 * closed: the browser names a route of the operator API, never an arbitrary upstream URL, so a
 * crafted path (`..`, encoded slashes, another host) can never carry the operator's token
 * anywhere else.
 */
import 'server-only';

type Method = 'GET' | 'POST' | 'DELETE';

/** One segment pattern: a literal, or `:param` for one id-like segment. */
const ROUTES: readonly { method: Method; pattern: readonly string[] }[] = [
  { method: 'GET', pattern: ['me'] },
  { method: 'GET', pattern: ['fleet'] },
  { method: 'GET', pattern: ['health'] },
  { method: 'GET', pattern: ['requests'] },
  { method: 'GET', pattern: ['requests', ':id'] },
  { method: 'POST', pattern: ['requests', ':id', 'decision'] },
  { method: 'GET', pattern: ['grants'] },
  { method: 'DELETE', pattern: ['grants', ':id'] },
  { method: 'GET', pattern: ['agents'] },
  { method: 'GET', pattern: ['agents', ':id', 'timeline'] },
  { method: 'POST', pattern: ['agents', ':id', 'signals'] },
  { method: 'GET', pattern: ['agents', ':id', 'enforcement'] },
  { method: 'POST', pattern: ['agents', ':id', 'enforcement', 'reset'] },
  { method: 'GET', pattern: ['config'] },
  { method: 'POST', pattern: ['config'] },
  { method: 'GET', pattern: ['config', 'history'] },
  { method: 'POST', pattern: ['config', 'validate'] },
  { method: 'POST', pattern: ['config', 'replay'] },
  { method: 'GET', pattern: ['config', 'replay', ':id'] },
  { method: 'DELETE', pattern: ['config', 'replay', ':id'] },
  { method: 'GET', pattern: ['config', 'shadow'] },
  { method: 'POST', pattern: ['config', 'shadow'] },
  { method: 'POST', pattern: ['config', 'shadow', 'promote'] },
  { method: 'DELETE', pattern: ['config', 'shadow'] },
  { method: 'GET', pattern: ['config', ':id'] },
  { method: 'GET', pattern: ['signals'] },
  { method: 'GET', pattern: ['signals', 'export'] },
  { method: 'GET', pattern: ['signals', 'stats'] },
  { method: 'GET', pattern: ['hooks', ':id'] },
  { method: 'GET', pattern: ['notifications', 'deliveries'] },
  { method: 'POST', pattern: ['notifications', 'dead-letters', ':id', 'replay'] },
  // Decision links: the token travels in the body (never in a path or query, which logs keep).
  { method: 'POST', pattern: ['links', 'inspect'] },
  { method: 'POST', pattern: ['links', 'redeem'] },
  { method: 'GET', pattern: ['push', 'vapid-key'] },
  { method: 'GET', pattern: ['push', 'subscriptions'] },
  { method: 'POST', pattern: ['push', 'subscriptions'] },
  { method: 'POST', pattern: ['push', 'subscriptions', 'remove'] },
];

/** Ids, request ids and version numbers: the characters of the protocol's `Id`. */
const PARAM = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The gateway path (`/v1/operator/…`, segments URL-encoded) for `segments`, or `null` when no
 * route of the operator API matches (the proxy answers 404 without calling the gateway).
 */
export function operatorApiPath(method: string, segments: readonly string[]): string | null {
  const verb = method.toUpperCase();
  for (const route of ROUTES) {
    if (route.method !== verb || route.pattern.length !== segments.length) continue;
    const matches = route.pattern.every((part, i) => {
      const segment = segments[i] ?? '';
      return part.startsWith(':') ? PARAM.test(segment) && segment !== '.' && segment !== '..' : part === segment;
    });
    if (matches) return `/v1/operator/${segments.map(encodeURIComponent).join('/')}`;
  }
  return null;
}
