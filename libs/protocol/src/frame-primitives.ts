/**
 * What every frame shares: the protocol version, the bounds of the frame layer, the request id a
 * client picks and the sequence number of pushes.
 */
import { z } from 'zod';
import { IdSchema } from './primitives.js';

/**
 * The protocol version this library speaks. A client names it in `hello.protocol`; the gateway
 * answers with the version it will use in `welcome.protocol` or refuses with
 * `E_UNSUPPORTED_VERSION`. Because every object is strict, ANY change to a frame — even an added
 * optional field — is a new version.
 */
export const PROTOCOL_VERSION = 1;

/** The versions a gateway built from this library accepts in `hello.protocol`. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly number[] = Object.freeze([PROTOCOL_VERSION]);

/** Bounds of the frame layer itself; message-level bounds live in `LIMITS`. */
export const FRAME_LIMITS = {
  /** Default for `welcome.limits.max_frame_bytes` and {@link parseClientFrame}: 1 MiB of UTF-8. */
  defaultMaxFrameBytes: 1024 * 1024,
  /** Longest `hook.deadline_ms` a client may ask for: 15 minutes. */
  maxHookDeadlineMs: 15 * 60 * 1000,
  /** Longest `request.deadline_ms`: 7 days (a person may take a weekend to approve a plan). */
  maxRequestDeadlineMs: 7 * 24 * 60 * 60 * 1000,
  /** Issues listed in `details.issues` of an `E_INVALID_FRAME` error. */
  maxReportedIssues: 10,
} as const;

/** A client-chosen request id: any `Id` (1–128 of `A-Za-z0-9._:-`). Unique among the client's pending requests. */
export const FrameIdSchema = IdSchema.meta({
  id: 'FrameId',
  description: 'Client-chosen request id (1-128 characters of A-Za-z0-9._:-); the reply carries it back.',
});

/**
 * A push sequence number: per session, strictly increasing, starting at 1, never reused — also
 * not across reconnects of the same session. `hello.last_seq` sends back the highest one the client
 * has processed.
 */
export const SeqSchema = z.int().min(1).max(Number.MAX_SAFE_INTEGER).meta({
  id: 'Seq',
  description: 'Per-session push sequence number, strictly increasing from 1.',
});
