// An OTLP/HTTP receiver for the tracing suites: `POST /v1/traces` on 127.0.0.1 (a free port), taking
// what an OpenTelemetry SDK's exporters send, OTLP JSON (`application/json`) or protobuf
// (`application/x-protobuf`), gzipped or not, and keeping every span in one plain shape whatever the
// protocol: ids as lower-case hex, kinds and status codes as words, attributes as a record. It answers
// 200 with an empty ExportTraceServiceResponse in the request's own content type, as a collector does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';

/** An attribute's value as OTLP carries it: a scalar, a list, or a nested record. */
export type AttributeValue =
  | string
  | number
  | boolean
  | Uint8Array
  | null
  | readonly AttributeValue[]
  | { readonly [key: string]: AttributeValue };

export type Attributes = Readonly<Record<string, AttributeValue>>;

/** OTLP's SpanKind, by number (0 is unspecified). */
const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
export type ReceivedSpanKind = (typeof KINDS)[number];
/** OTLP's StatusCode, by number. */
const STATUS_CODES = ['unset', 'ok', 'error'] as const;

/** One span as received. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Absent on a root span. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: ReceivedSpanKind;
  /** Nanoseconds since the epoch. */
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: Attributes;
  readonly events: readonly { readonly name: string; readonly attributes: Attributes }[];
  readonly links: readonly { readonly traceId: string; readonly spanId: string; readonly attributes: Attributes }[];
  readonly status: { readonly code: (typeof STATUS_CODES)[number]; readonly message: string };
  /** The attributes of the resource that sent it (`service.name`, `process.pid`...). */
  readonly resource: Attributes;
  /** The instrumentation scope that made it (`@plant-store/core`, an instrumentation's package). */
  readonly scope: { readonly name: string; readonly version: string };
  /** The media type of the export request that carried it. */
  readonly contentType: 'application/json' | 'application/x-protobuf';
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: what OTEL_EXPORTER_OTLP_ENDPOINT takes (exporters add `/v1/traces`). */
  readonly url: string;
  /** Every span received so far, in arrival order. */
  readonly spans: readonly ReceivedSpan[];
  /** The export requests answered so far: media type, whether gzipped, and the ids of the spans carried. */
  readonly exports: readonly { readonly contentType: string; readonly gzip: boolean; readonly spanIds: string[] }[];
  /**
   * Resolves to the spans received once `predicate` holds for them (checked now and on each export);
   * rejects after `timeoutMs`, naming `what` and listing what did arrive.
   */
  waitFor(
    predicate: (spans: readonly ReceivedSpan[]) => boolean,
    timeoutMs?: number,
    what?: string,
  ): Promise<readonly ReceivedSpan[]>;
  /** Stops listening and closes every connection. */
  close(): Promise<void>;
}

/**
 * The OTLP messages the receiver reads and writes, as in opentelemetry-proto (the trace service,
 * trace, resource and common protos), cut to what a span export carries.
 */
const OTLP_PROTO = `
syntax = "proto3";
package otlp;

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess { int64 rejected_spans = 1; string error_message = 2; }

message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}

message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  fixed32 flags = 16;
  string name = 5;
  SpanKind kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;

  enum SpanKind {
    SPAN_KIND_UNSPECIFIED = 0;
    SPAN_KIND_INTERNAL = 1;
    SPAN_KIND_SERVER = 2;
    SPAN_KIND_CLIENT = 3;
    SPAN_KIND_PRODUCER = 4;
    SPAN_KIND_CONSUMER = 5;
  }
  message Event {
    fixed64 time_unix_nano = 1;
    string name = 2;
    repeated KeyValue attributes = 3;
    uint32 dropped_attributes_count = 4;
  }
  message Link {
    bytes trace_id = 1;
    bytes span_id = 2;
    string trace_state = 3;
    repeated KeyValue attributes = 4;
    uint32 dropped_attributes_count = 5;
    fixed32 flags = 6;
  }
}

message Status {
  reserved 1;
  string message = 2;
  StatusCode code = 3;
  enum StatusCode {
    STATUS_CODE_UNSET = 0;
    STATUS_CODE_OK = 1;
    STATUS_CODE_ERROR = 2;
  }
}

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
`;

const root = protobuf.parse(OTLP_PROTO).root;
const ExportRequest = root.lookupType('otlp.ExportTraceServiceRequest');
const ExportResponse = root.lookupType('otlp.ExportTraceServiceResponse');

const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

// The export request as both encodings give it once parsed: field names in lowerCamelCase (protobufjs
// converts them; OTLP JSON uses them), ids as hex (JSON) or bytes (protobuf), 64-bit numbers as a
// number or a decimal string (JSON), or a string (protobufjs's `longs: String`).
type Id = string | Uint8Array | undefined;
type Long = string | number | undefined;
interface WireValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: Long;
  doubleValue?: number;
  arrayValue?: { values?: WireValue[] };
  kvlistValue?: { values?: WireKeyValue[] };
  bytesValue?: string | Uint8Array;
}
interface WireKeyValue {
  key: string;
  value?: WireValue;
}
interface WireSpan {
  traceId?: Id;
  spanId?: Id;
  parentSpanId?: Id;
  name?: string;
  kind?: number;
  startTimeUnixNano?: Long;
  endTimeUnixNano?: Long;
  attributes?: WireKeyValue[];
  events?: { name?: string; attributes?: WireKeyValue[] }[];
  links?: { traceId?: Id; spanId?: Id; attributes?: WireKeyValue[] }[];
  status?: { code?: number; message?: string };
}
interface WireRequest {
  resourceSpans?: {
    resource?: { attributes?: WireKeyValue[] };
    scopeSpans?: { scope?: { name?: string; version?: string }; spans?: WireSpan[] }[];
  }[];
}

/** An id as lower-case hex: JSON sends hex already, protobuf the bytes. */
function hexOf(id: Id): string {
  if (id === undefined) return '';
  if (typeof id === 'string') {
    if (!/^[0-9a-fA-F]*$/.test(id)) throw new Error(`an id that is not hex: ${id}`);
    return id.toLowerCase();
  }
  return Buffer.from(id).toString('hex');
}

function attributeValueOf(value: WireValue | undefined): AttributeValue {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return Number(value.doubleValue);
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(attributeValueOf);
  if (value.kvlistValue !== undefined) return attributesOf(value.kvlistValue.values);
  if (value.bytesValue !== undefined) {
    // OTLP JSON carries bytes as base64.
    return typeof value.bytesValue === 'string'
      ? new Uint8Array(Buffer.from(value.bytesValue, 'base64'))
      : new Uint8Array(value.bytesValue);
  }
  return null;
}

function attributesOf(list: WireKeyValue[] | undefined): Attributes {
  const attributes: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) attributes[key] = attributeValueOf(value);
  return attributes;
}

function spansOf(request: WireRequest, contentType: ReceivedSpan['contentType']): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      const scope = { name: scopeSpans.scope?.name ?? '', version: scopeSpans.scope?.version ?? '' };
      for (const span of scopeSpans.spans ?? []) {
        const parent = hexOf(span.parentSpanId);
        spans.push({
          traceId: hexOf(span.traceId),
          spanId: hexOf(span.spanId),
          parentSpanId: parent === '' ? undefined : parent,
          name: span.name ?? '',
          kind: KINDS[span.kind ?? 0] ?? 'unspecified',
          startTimeUnixNano: BigInt(span.startTimeUnixNano ?? 0),
          endTimeUnixNano: BigInt(span.endTimeUnixNano ?? 0),
          attributes: attributesOf(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name ?? '',
            attributes: attributesOf(event.attributes),
          })),
          links: (span.links ?? []).map((link) => ({
            traceId: hexOf(link.traceId),
            spanId: hexOf(link.spanId),
            attributes: attributesOf(link.attributes),
          })),
          status: { code: STATUS_CODES[span.status?.code ?? 0] ?? 'unset', message: span.status?.message ?? '' },
          resource,
          scope,
          contentType,
        });
      }
    }
  }
  return spans;
}

/** Decodes one export request's body by its media type. */
function decode(body: Buffer, contentType: ReceivedSpan['contentType']): ReceivedSpan[] {
  if (contentType === JSON_TYPE) return spansOf(JSON.parse(body.toString('utf8')) as WireRequest, contentType);
  const message = ExportRequest.decode(body);
  // Bytes stay bytes (hexOf reads them), 64-bit numbers become decimal strings, enums numbers.
  const request = ExportRequest.toObject(message, { longs: String, enums: Number }) as WireRequest;
  return spansOf(request, contentType);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, contentType: string, body: string | Uint8Array): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Starts a receiver on 127.0.0.1 and a free port. Close it in `afterAll` (or the test's `finally`). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exported: { contentType: string; gzip: boolean; spanIds: string[] }[] = [];
  const waiters = new Set<() => void>();

  const server = createServer((req, res) => {
    void (async () => {
      if (req.url !== '/v1/traces') return answer(res, 404, 'text/plain', 'only /v1/traces is served here\n');
      if (req.method !== 'POST') return answer(res, 405, 'text/plain', 'POST only\n');
      const mediaType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (mediaType !== JSON_TYPE && mediaType !== PROTOBUF_TYPE) {
        return answer(res, 415, 'text/plain', `not an OTLP media type: ${mediaType}\n`);
      }
      const gzip = req.headers['content-encoding'] === 'gzip';
      let received: ReceivedSpan[];
      try {
        let body = await readBody(req);
        if (gzip) body = gunzipSync(body);
        received = decode(body, mediaType);
      } catch (error) {
        return answer(res, 400, 'text/plain', `undecodable export: ${String(error)}\n`);
      }
      spans.push(...received);
      exported.push({ contentType: mediaType, gzip, spanIds: received.map((span) => span.spanId) });
      // An empty ExportTraceServiceResponse: all spans accepted.
      if (mediaType === JSON_TYPE) answer(res, 200, JSON_TYPE, '{}');
      else answer(res, 200, PROTOBUF_TYPE, ExportResponse.encode(ExportResponse.create({})).finish());
      for (const wake of [...waiters]) wake();
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    exports: exported,
    waitFor(predicate, timeoutMs = 10_000, what = 'the spans awaited') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          done();
          resolve(spans);
        };
        const timer = setTimeout(() => {
          done();
          const seen = spans.map((s) => `${s.kind} ${s.name} ${s.traceId}/${s.spanId} <- ${s.parentSpanId ?? 'root'}`);
          reject(new Error(`${what}: not received within ${timeoutMs} ms; received:\n${seen.join('\n')}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * The OTEL_* variables that point an SDK's trace exporter at `receiver` with `protocol`, every span
 * exported within `scheduleDelayMs` of its end (the batch processor's delay; the SDK's default is 5 s).
 */
export function exporterEnv(
  receiver: Pick<OtlpReceiver, 'url'>,
  protocol: 'http/json' | 'http/protobuf',
  scheduleDelayMs = 50,
): Record<string, string> {
  return {
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: String(scheduleDelayMs),
  };
}
