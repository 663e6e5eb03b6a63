import { describe, expect, it } from 'vitest';
import { traceLink } from './trace-link';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describe('traceLink', () => {
  it('links the trace id into the configured tracing UI', () => {
    expect(traceLink(TRACE, 'http://jaeger:16686/trace/{trace_id}')).toEqual({ traceId: TRACE, href: `http://jaeger:16686/trace/${TRACE}` });
  });

  it('shows the id alone without a template, and nothing for a hook without a trace', () => {
    expect(traceLink(TRACE, undefined)).toEqual({ traceId: TRACE });
    expect(traceLink(undefined, 'http://jaeger:16686/trace/{trace_id}')).toBeUndefined();
  });
});
