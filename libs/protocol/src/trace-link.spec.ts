import { describe, expect, it } from 'vitest';
import { TraceUrlTemplateSchema, traceUrlOf } from './trace-link.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('trace URL templates', () => {
  it('accepts an http(s) URL with {trace_id}, anywhere in it', () => {
    for (const template of ['http://jaeger:16686/trace/{trace_id}', 'https://grafana.example.com/explore?traceId={trace_id}&orgId=1']) {
      expect(TraceUrlTemplateSchema.parse(` ${template} `)).toBe(template);
    }
  });

  it('refuses a template without {trace_id}, a relative or non-http URL, and one too long', () => {
    for (const template of ['http://jaeger:16686/trace/', '/trace/{trace_id}', 'javascript:alert("{trace_id}")', 'data:text/html,{trace_id}', 'ftp://x/{trace_id}', `http://x/${'a'.repeat(2048)}{trace_id}`]) {
      expect(TraceUrlTemplateSchema.safeParse(template).success, template).toBe(false);
    }
  });

  it('puts the trace id in place of every {trace_id}', () => {
    expect(traceUrlOf('http://jaeger:16686/trace/{trace_id}', TRACE)).toBe(`http://jaeger:16686/trace/${TRACE}`);
    expect(traceUrlOf('https://t/{trace_id}?q={trace_id}', TRACE)).toBe(`https://t/${TRACE}?q=${TRACE}`);
  });
});
