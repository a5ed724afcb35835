/**
 * Decodes OTLP JSON trace exports (`ExportTraceServiceRequest`: `resourceSpans → scopeSpans →
 * spans`) into flat spans with plain attribute values. A file is one such JSON document (pretty
 * printed or not) or JSON Lines of them, as the OpenTelemetry Collector's file exporter writes.
 */

import { DataFormatError } from '../../core/errors.ts';
import { lineOfJsonError, lineOfOffset, parseJsonLines } from './json-lines.ts';
import { describeValue, isObject, TranscriptProblem } from './transcript-problem.ts';

/** One span, decoded, with where it was found for error messages. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Start and end in nanoseconds since the Unix epoch. */
  start: bigint;
  end: bigint;
  /** Attribute values as plain JSON: strings, numbers, booleans, arrays, objects. */
  attributes: Record<string, unknown>;
  /** Status code ERROR (2). */
  failed: boolean;
  /** The status message, else the message of the first `exception` event. */
  errorMessage?: string;
  /** 1-based line of the file where the span starts (its `spanId`, when found). */
  line: number;
  /** E.g. `resourceSpans[0].scopeSpans[0].spans[2] "ai.toolCall"`. */
  where: string;
}

/** One JSON document of the file and the line it starts on. */
interface Document {
  value: unknown;
  line: number;
  text: string;
}

/**
 * Every span of an OTLP JSON text, in file order. A malformed document or span (no traceId, no
 * start time, an attribute without a value, …) throws a `DataFormatError` naming `file`, the
 * line and the span.
 */
export function decodeOtlpSpans(text: string, file: string): OtlpSpan[] {
  const spans: OtlpSpan[] = [];
  for (const document of documentsOf(text, file)) {
    const refuse = (line: number, problem: string) => new DataFormatError(file, line, problem);
    if (!isObject(document.value) || !Array.isArray(document.value.resourceSpans)) {
      const found = isObject(document.value) ? document.value.resourceSpans : document.value;
      throw refuse(
        document.line,
        `resourceSpans: ${found === undefined ? 'missing' : `got ${describeValue(found)}`}; expected an OTLP JSON trace export {"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`,
      );
    }
    document.value.resourceSpans.forEach((resourceSpans: unknown, r: number) => {
      const scopes = arrayField(resourceSpans, 'scopeSpans');
      scopes.forEach((scopeSpans, s) => {
        arrayField(scopeSpans, 'spans').forEach((span, i) => {
          const path = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
          const line = lineOfSpan(document, span);
          try {
            spans.push(decodeSpan(span, path, line));
          } catch (error) {
            if (error instanceof TranscriptProblem) throw refuse(line, error.message);
            throw error;
          }
        });
      });
    });
  }
  return spans;
}

/** A whole-file JSON document, else JSON Lines of documents. */
function documentsOf(text: string, file: string): Document[] {
  const body = text.replace(/^\uFEFF/, '');
  try {
    return [{ value: JSON.parse(body), line: 1, text: body }];
  } catch (error) {
    const firstLine = body.split('\n').find((line) => line.trim() !== '') ?? '';
    if (!parses(firstLine)) {
      throw new DataFormatError(
        file,
        lineOfJsonError(body, error as Error),
        `not valid JSON (${(error as Error).message}); expected an OTLP JSON trace export or JSON Lines of them`,
      );
    }
  }
  return parseJsonLines(body, file, 'one OTLP JSON trace export {"resourceSpans": [...]}').map(
    ({ value, line, text: raw }) => ({ value, line, text: raw }),
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** OTLP's JSON mapping leaves out empty repeated fields, so a missing array is an empty one. */
function arrayField(value: unknown, field: string): unknown[] {
  if (!isObject(value) || value[field] === undefined) return [];
  const items = value[field];
  return Array.isArray(items) ? items : [];
}

function lineOfSpan(document: Document, span: unknown): number {
  if (!isObject(span) || typeof span.spanId !== 'string') return document.line;
  const at = new RegExp(`"spanId"\\s*:\\s*"${escapeRegExp(span.spanId)}"`).exec(document.text);
  return at ? document.line + lineOfOffset(document.text, at.index) - 1 : document.line;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decodeSpan(span: unknown, path: string, line: number): OtlpSpan {
  if (!isObject(span)) {
    throw new TranscriptProblem(`${path}: expected a span object, got ${describeValue(span)}`);
  }
  const name = typeof span.name === 'string' ? span.name : '';
  const where = `${path}${name ? ` ${JSON.stringify(name)}` : ''}`;
  const id = (field: 'traceId' | 'spanId', value: unknown) => {
    if (typeof value === 'string' && /[^0]/.test(value)) return value;
    const why =
      field === 'traceId'
        ? 'episodes are grouped by trace, so every span needs its trace id'
        : 'every span needs its own id';
    throw new TranscriptProblem(
      `${where}: ${value === undefined || value === '' ? `no ${field}` : `${field} ${describeValue(value)} is not a valid id`}; ${why}`,
    );
  };
  const start = nanos(span.startTimeUnixNano, 'startTimeUnixNano', where);
  const decoded: OtlpSpan = {
    traceId: id('traceId', span.traceId),
    spanId: id('spanId', span.spanId),
    name,
    start,
    end:
      span.endTimeUnixNano === undefined
        ? start
        : nanos(span.endTimeUnixNano, 'endTimeUnixNano', where),
    attributes: decodeAttributes(span.attributes, `${where}.attributes`),
    failed: false,
    line,
    where,
  };
  if (typeof span.parentSpanId === 'string' && span.parentSpanId !== '') {
    decoded.parentSpanId = span.parentSpanId;
  }
  const status = isObject(span.status) ? span.status : {};
  decoded.failed = status.code === 2 || status.code === 'STATUS_CODE_ERROR';
  const message =
    typeof status.message === 'string' && status.message !== ''
      ? status.message
      : exceptionMessage(span.events);
  if (message !== undefined) decoded.errorMessage = message;
  return decoded;
}

function nanos(value: unknown, field: string, where: string): bigint {
  if ((typeof value === 'string' && /^\d+$/.test(value)) || Number.isSafeInteger(value)) {
    return BigInt(value as string | number);
  }
  throw new TranscriptProblem(
    `${where}.${field}: expected nanoseconds since the Unix epoch, e.g. "1741430400000000000", got ${describeValue(value)}`,
  );
}

function exceptionMessage(events: unknown): string | undefined {
  if (!Array.isArray(events)) return undefined;
  for (const event of events) {
    if (!isObject(event) || event.name !== 'exception') continue;
    const message = decodeAttributes(event.attributes, 'events')['exception.message'];
    if (typeof message === 'string') return message;
  }
  return undefined;
}

/** OTLP `KeyValue[]` to a plain object. */
function decodeAttributes(attributes: unknown, where: string): Record<string, unknown> {
  const decoded: Record<string, unknown> = {};
  if (attributes === undefined) return decoded;
  if (!Array.isArray(attributes)) {
    throw new TranscriptProblem(
      `${where}: expected an array of {key, value}, got ${describeValue(attributes)}`,
    );
  }
  attributes.forEach((attribute, i) => {
    if (!isObject(attribute) || typeof attribute.key !== 'string') {
      throw new TranscriptProblem(
        `${where}[${i}]: expected {"key": …, "value": {…}}, got ${describeValue(attribute)}`,
      );
    }
    decoded[attribute.key] = decodeAnyValue(
      attribute.value,
      `${where}[${i}] ${JSON.stringify(attribute.key)}`,
    );
  });
  return decoded;
}

/** OTLP `AnyValue` (`{stringValue}`, `{intValue}`, `{arrayValue: {values}}`, …) to plain JSON. */
function decodeAnyValue(value: unknown, where: string): unknown {
  if (!isObject(value)) {
    throw new TranscriptProblem(
      `${where}: expected an OTLP value such as {"stringValue": "…"}, got ${describeValue(value)}`,
    );
  }
  if (typeof value.stringValue === 'string') return value.stringValue;
  if (typeof value.boolValue === 'boolean') return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    if (Number.isInteger(n)) return n;
  }
  if (value.doubleValue !== undefined) {
    const x = Number(value.doubleValue);
    if (!Number.isNaN(x)) return x;
  }
  if (typeof value.bytesValue === 'string') return value.bytesValue;
  if (isObject(value.arrayValue)) {
    const values = value.arrayValue.values ?? [];
    if (Array.isArray(values)) return values.map((v, i) => decodeAnyValue(v, `${where}[${i}]`));
  }
  if (isObject(value.kvlistValue)) return decodeAttributes(value.kvlistValue.values ?? [], where);
  if (Object.keys(value).length === 0) return null;
  throw new TranscriptProblem(
    `${where}: not an OTLP value; expected one of stringValue, boolValue, intValue, doubleValue, bytesValue, arrayValue, kvlistValue`,
  );
}
