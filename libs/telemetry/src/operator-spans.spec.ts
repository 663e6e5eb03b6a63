import { EventEmitter } from 'node:events';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { OPERATOR_SPANS, operatorRequestTracer, traceGatewayCall } from './operator-spans.js';
import type { Tracing } from './tracing.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(new W3CTraceContextPropagator());
const tracing: Tracing = { enabled: true, tracer: provider.getTracer('test'), bullmq: undefined, shutdown: () => provider.shutdown() };

afterAll(async () => {
  await provider.shutdown();
  context.disable();
  propagation.disable();
});
beforeEach(() => {
  exporter.reset();
});

/** A response that closes when told to. */
function response(statusCode: number): EventEmitter & { statusCode: number } {
  return Object.assign(new EventEmitter(), { statusCode });
}

describe('a console call to the gateway, traced on both sides', () => {
  it('the console span hands its traceparent to the request; the gateway span continues that trace', async () => {
    let sent: Record<string, string> = {};
    const answer = await traceGatewayCall(tracing, 'GET', '/v1/operator/hooks/abc?x=1', (headers) => {
      sent = headers;
      return Promise.resolve({ status: 200 });
    });
    expect(answer.status).toBe(200);
    await provider.forceFlush();
    const [client] = exporter.getFinishedSpans();
    expect(client?.name).toBe(OPERATOR_SPANS.gatewayCall);
    expect(client?.attributes).toMatchObject({ 'http.request.method': 'GET', 'url.path': '/v1/operator/hooks/abc', 'http.response.status_code': 200 });
    expect(sent['traceparent']).toBe(`00-${client?.spanContext().traceId ?? ''}-${client?.spanContext().spanId ?? ''}-01`);

    // The gateway side: the rest of the request runs inside the server span, which ends on close.
    const res = response(204);
    let inside: string | undefined;
    operatorRequestTracer(tracing)({ method: 'POST', originalUrl: '/v1/operator/config/validate?dry=1', headers: { traceparent: sent['traceparent'] } }, res, () => {
      inside = trace.getActiveSpan()?.spanContext().spanId;
    });
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()).toHaveLength(1);
    res.emit('close');
    await provider.forceFlush();
    const server = exporter.getFinishedSpans()[1];
    expect(server?.name).toBe(OPERATOR_SPANS.request);
    expect(inside).toBe(server?.spanContext().spanId);
    expect(server?.spanContext().traceId).toBe(client?.spanContext().traceId);
    expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
    expect(server?.attributes).toMatchObject({ 'http.request.method': 'POST', 'url.path': '/v1/operator/config/validate', 'http.response.status_code': 204 });
  });

  it('a request without traceparent starts its own trace; a failed call is an error span', async () => {
    const res = response(503);
    operatorRequestTracer(tracing)({ method: 'GET', url: '/v1/operator/fleet', headers: {} }, res, () => undefined);
    res.emit('close');
    await provider.forceFlush();
    const [server] = exporter.getFinishedSpans();
    expect(server?.parentSpanContext).toBeUndefined();
    expect(server?.status.code).toBe(2);

    await expect(traceGatewayCall(tracing, 'GET', '/v1/operator/fleet', () => Promise.reject(new Error('ECONNREFUSED')))).rejects.toThrow('ECONNREFUSED');
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()[1]?.status).toMatchObject({ code: 2, message: 'ECONNREFUSED' });
  });
});
