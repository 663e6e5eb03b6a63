/**
 * A hook's link to its OpenTelemetry trace (docs/deploy.md "Tracing"): the trace id the drill-down
 * records, and the URL template an operator gives the console for their tracing UI (Jaeger,
 * Tempo through Grafana, …), e.g. `http://jaeger:16686/trace/{trace_id}`.
 */
import { z } from 'zod';

/**
 * The W3C trace id (32 lowercase hex digits, not all zero) of a hook's trace, recorded when the
 * worker traced the hook and the trace was sampled.
 */
export const TraceIdSchema = z.string().regex(/^(?!0{32})[0-9a-f]{32}$/, 'a W3C trace id: 32 lowercase hex digits, not all zero');

/** What a trace URL template must contain: replaced by the trace id. */
export const TRACE_ID_PLACEHOLDER = '{trace_id}';

/**
 * A trace URL template: an absolute http(s) URL (never `javascript:` or `data:`: it becomes a link
 * in the console) containing {@link TRACE_ID_PLACEHOLDER}, at most 2,048 characters.
 */
export const TraceUrlTemplateSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((template) => template.includes(TRACE_ID_PLACEHOLDER), `must contain ${TRACE_ID_PLACEHOLDER}`)
  .refine((template) => {
    try {
      const url = new URL(template.replaceAll(TRACE_ID_PLACEHOLDER, '0'.repeat(31) + '1'));
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

/** The URL of `traceId` in the tracing UI `template` names (a template checked by {@link TraceUrlTemplateSchema}). */
export function traceUrlOf(template: string, traceId: string): string {
  return template.replaceAll(TRACE_ID_PLACEHOLDER, encodeURIComponent(traceId));
}
