/**
 * The operators' live feed for the browser: the gateway's Server-Sent Events stream
 * (`/v1/operator/live`, with the page's `agents` filter) piped through with the session's token. One upstream connection per
 * browser connection; it is aborted as soon as the browser goes away.
 */
import type { NextRequest } from 'next/server';
import { consoleEnv } from '@/lib/server/console-env';
import { gatewayFetch } from '@/lib/server/gateway-fetch';
import { sessionToken } from '@/lib/server/request-guard';
import { errorResponse, gatewayUnavailable } from '@/lib/server/responses';

export const dynamic = 'force-dynamic';

/** The gateway's feed, following the agents the page asked for (`?agents=`; the gateway checks them). Nothing else is passed on. */
function livePath(request: NextRequest): string {
  const agents = request.nextUrl.searchParams.get('agents');
  return agents === null ? '/v1/operator/live' : `/v1/operator/live?agents=${encodeURIComponent(agents)}`;
}

export async function GET(request: NextRequest): Promise<Response> {
  const session = sessionToken(request);
  if ('refusal' in session) return session.refusal;
  const upstreamAbort = new AbortController();
  const stop = () => upstreamAbort.abort();
  request.signal.addEventListener('abort', stop, { once: true });

  let upstream: Response;
  try {
    upstream = await gatewayFetch(livePath(request), { token: session.token, accept: 'text/event-stream', signal: upstreamAbort.signal });
  } catch (error) {
    request.signal.removeEventListener('abort', stop);
    return gatewayUnavailable(consoleEnv().gatewayUrl, error);
  }
  if (!upstream.ok || upstream.body === null) {
    request.signal.removeEventListener('abort', stop);
    const text = await upstream.text().catch(() => '');
    return new Response(text || null, { status: upstream.ok ? 502 : upstream.status, headers: { 'content-type': upstream.headers.get('content-type') ?? 'application/json' } });
  }
  if (!(upstream.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    stop();
    return errorResponse(502, 'E_INTERNAL', 'the gateway live feed did not answer with an event stream');
  }

  const reader = upstream.body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        // The gateway went away mid-stream: end the browser's stream with an error so it reconnects.
        controller.error(error);
      }
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
