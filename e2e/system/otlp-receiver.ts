/**
 * A local OTLP/HTTP trace receiver for the tracing test: `POST /v1/traces` with an
 * `ExportTraceServiceRequest` in protobuf (what `@opentelemetry/exporter-trace-otlp-proto`
 * sends), decoded here with a small reader of the protobuf wire format — only the fields the test
 * looks at (opentelemetry-proto: trace/v1/trace.proto, common/v1/common.proto).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span, flattened. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

export interface OtlpReceiver {
  /** Base URL for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  readonly spans: readonly ReceivedSpan[];
  /** Export requests that did not decode (there should be none). */
  readonly rejected: number;
  close(): Promise<void>;
}

type Field = { no: number; wire: number; value: bigint | Buffer };

/** The top-level fields of one protobuf message. */
function readFields(buf: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (at >= buf.length) throw new Error('truncated varint');
      const byte = buf[at++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buf.length) {
    const tag = Number(varint());
    const no = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) fields.push({ no, wire, value: varint() });
    else if (wire === 1) {
      fields.push({ no, wire, value: buf.readBigUInt64LE(at) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      fields.push({ no, wire, value: buf.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      fields.push({ no, wire, value: BigInt(buf.readUInt32LE(at)) });
      at += 4;
    } else throw new Error(`wire type ${wire} not supported`);
  }
  return fields;
}

const bytesOf = (fields: Field[], no: number): Buffer[] => fields.filter((f) => f.no === no && Buffer.isBuffer(f.value)).map((f) => f.value as Buffer);
const first = (fields: Field[], no: number): Buffer | undefined => bytesOf(fields, no)[0];
const numberOf = (fields: Field[], no: number): bigint => {
  const found = fields.find((f) => f.no === no && typeof f.value === 'bigint');
  return (found?.value as bigint | undefined) ?? 0n;
};

/** KeyValue list → record (AnyValue: 1 string, 2 bool, 3 int, 4 double). */
function attributesOf(keyValues: Buffer[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const raw of keyValues) {
    const kv = readFields(raw);
    const key = first(kv, 1)?.toString('utf8') ?? '';
    const anyValue = first(kv, 2);
    if (anyValue === undefined) continue;
    const value = readFields(anyValue)[0];
    if (value === undefined) continue;
    if (value.no === 1 && Buffer.isBuffer(value.value)) out[key] = value.value.toString('utf8');
    else if (value.no === 2) out[key] = value.value === 1n;
    else if (value.no === 3) out[key] = Number(value.value);
    else if (value.no === 4 && typeof value.value === 'bigint') {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(value.value);
      out[key] = b.readDoubleLE();
    }
  }
  return out;
}

/** ExportTraceServiceRequest → spans. */
export function decodeTraceExport(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of bytesOf(readFields(body), 1)) {
    const rs = readFields(resourceSpans);
    const resource = first(rs, 1);
    const service = String(attributesOf(resource === undefined ? [] : bytesOf(readFields(resource), 1))['service.name'] ?? '');
    for (const scopeSpans of bytesOf(rs, 2)) {
      for (const rawSpan of bytesOf(readFields(scopeSpans), 2)) {
        const span = readFields(rawSpan);
        spans.push({
          service,
          traceId: first(span, 1)?.toString('hex') ?? '',
          spanId: first(span, 2)?.toString('hex') ?? '',
          parentSpanId: first(span, 4)?.toString('hex') ?? '',
          name: first(span, 5)?.toString('utf8') ?? '',
          startNs: numberOf(span, 7),
          endNs: numberOf(span, 8),
          attributes: attributesOf(bytesOf(span, 9)),
        });
      }
    }
  }
  return spans;
}

/** Starts the receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let rejected = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !String(request.headers['content-type']).startsWith('application/x-protobuf')) {
        rejected += 1;
        response.writeHead(404).end();
        return;
      }
      try {
        spans.push(...decodeTraceExport(Buffer.concat(chunks)));
        // An empty ExportTraceServiceResponse: full success.
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(Buffer.alloc(0));
      } catch {
        rejected += 1;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    get rejected() {
      return rejected;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
