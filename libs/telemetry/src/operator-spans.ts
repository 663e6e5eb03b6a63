/**
 * The spans of an operator's call from the console to the gateway's operator API, when both trace
 * (docs/deploy.md "Tracing"): the console's CLIENT span around its server-side call, whose W3C
 * `traceparent` header the gateway continues with a SERVER span for the request. One console
 * action → gateway request is then one trace.
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import type { IncomingHttpHeaders } from 'node:http';
import type { Tracing } from './tracing.js';

/** Span names of the operator path. */
export const OPERATOR_SPANS = {
  /** Console: one server-side call to the gateway's operator API. */
  gatewayCall: 'ahp.console.gateway_call',
  /** Gateway: one operator API request, continuing the caller's trace when it sent one. */
  request: 'ahp.operator.request',
} as const;

/** Attribute keys (OpenTelemetry's HTTP semantic conventions). */
export const OPERATOR_ATTRIBUTES = {
  method: 'http.request.method',
  path: 'url.path',
  status: 'http.response.status_code',
} as const;

/** What a traced call's answer needs to have: its HTTP status. */
export interface HttpAnswer {
  readonly status: number;
}

/**
 * Runs `call` inside a CLIENT span named {@link OPERATOR_SPANS.gatewayCall}, giving it the headers
 * that carry the span's context (`traceparent`) to add to its request. A status of 500 or more,
 * or a rejection, marks the span as an error. `path` is recorded without its query.
 */
export async function traceGatewayCall<T extends HttpAnswer>(tracing: Tracing, method: string, path: string, call: (headers: Record<string, string>) => Promise<T>): Promise<T> {
  const span = tracing.tracer.startSpan(OPERATOR_SPANS.gatewayCall, {
    kind: SpanKind.CLIENT,
    attributes: { [OPERATOR_ATTRIBUTES.method]: method, [OPERATOR_ATTRIBUTES.path]: path.split('?')[0] ?? path },
  });
  const inSpan = trace.setSpan(context.active(), span);
  const headers: Record<string, string> = {};
  propagation.inject(inSpan, headers);
  try {
    const answer = await context.with(inSpan, () => call(headers));
    span.setAttribute(OPERATOR_ATTRIBUTES.status, answer.status);
    if (answer.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${String(answer.status)}` });
    return answer;
  } catch (error) {
    span.recordException(error instanceof Error ? error : String(error));
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    span.end();
  }
}

/** The parts of a Node HTTP request and response {@link operatorRequestTracer} reads. */
interface TracedRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly originalUrl?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}
interface TracedResponse {
  readonly statusCode: number;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * A connect-style middleware that wraps each request in a SERVER span named
 * {@link OPERATOR_SPANS.request}, continuing the trace of the caller's `traceparent` header when
 * there is one (else a new trace, sampled as the process's sampler says), and runs the rest of the
 * request inside it. The span ends when the response is closed. Install it only when tracing is on.
 */
export function operatorRequestTracer(tracing: Tracing): (request: TracedRequest, response: TracedResponse, next: () => void) => void {
  return (request, response, next) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const method = request.method ?? 'GET';
    const path = (request.originalUrl ?? request.url ?? '').split('?')[0] ?? '';
    const span = tracing.tracer.startSpan(OPERATOR_SPANS.request, { kind: SpanKind.SERVER, attributes: { [OPERATOR_ATTRIBUTES.method]: method, [OPERATOR_ATTRIBUTES.path]: path } }, parent);
    response.once('close', () => {
      span.setAttribute(OPERATOR_ATTRIBUTES.status, response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${String(response.statusCode)}` });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  };
}
