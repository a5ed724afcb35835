/**
 * Reads OpenTelemetry GenAI spans from OTLP JSON into trajectories, one episode per trace. See
 * docs/transcripts.md.
 *
 * Two span vocabularies are read, alone or mixed:
 * - the Vercel AI SDK's telemetry: `ai.generateText` / `ai.streamText` spans with `ai.prompt`
 *   (`{system, prompt, messages}`) and `ai.response.text`, their `.doGenerate` / `.doStream`
 *   children with `ai.prompt.messages`, and `ai.toolCall` spans with `ai.toolCall.name`, `.id`,
 *   `.args` and `.result`;
 * - the OpenTelemetry GenAI semantic conventions: `execute_tool` spans (`gen_ai.operation.name`)
 *   with `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.call.arguments` and
 *   `gen_ai.tool.call.result`; the request from `gen_ai.input.messages` (or the older
 *   `gen_ai.prompt`), the answer from `gen_ai.output.messages` (or `gen_ai.completion`).
 * Tool calls, ordered by start time, are the actions (`name({json})`) and their results the
 * observations; the last response text, when it ends after the last tool call, is the final
 * action `answer[text]`.
 */

import { DataFormatError } from '../../core/errors.ts';
import type { Trajectory } from '../../core/types.ts';
import { formatAnswer } from '../../envs/mcp/action-syntax.ts';
import { TrajectoryFormatError } from '../trajectory-format.ts';
import { draftToTrajectory, type EpisodeStep, taskIdOf } from './episode.ts';
import { decodeOtlpSpans, type OtlpSpan } from './otlp-spans.ts';
import { combineOutcomes, OUTCOME_FIELDS, type Outcome, outcomeFromFields } from './outcome.ts';
import { parseToolArguments, toolCallAction } from './tool-call-action.ts';
import { isObject, TranscriptProblem } from './transcript-problem.ts';
import {
  type TranscriptRead,
  type TranscriptReadOptions,
  unmatchedOutcomeWarnings,
} from './transcript-reader.ts';

/** Span attribute prefixes an outcome (`reward`, `success`, `outcome`) is read under. */
export const OUTCOME_ATTRIBUTE_PREFIXES = ['ai.telemetry.metadata.', 'dreamgym.'] as const;

/** The policy id recorded when no span names a model. */
export const UNKNOWN_TRACE_POLICY = 'transcript';

/**
 * Reads an OTLP JSON text of GenAI spans, one episode per trace, all or nothing: the first
 * problem throws a `DataFormatError` naming the file, the line of the span and the reason (bad
 * JSON, no traceId, a tool span without arguments or result, no prompt, no outcome, …). Traces
 * with no GenAI span at all (an HTTP server's, say) are skipped with a warning.
 */
export function readOtlpGenAi(text: string, options: TranscriptReadOptions): TranscriptRead {
  const { file } = options;
  const traces = groupByTrace(decodeOtlpSpans(text, file), file);
  const trajectories: Trajectory[] = [];
  const warnings: string[] = [];
  for (const [traceId, spans] of traces) {
    if (!spans.some(isGenAi)) {
      warnings.push(
        `trace ${traceId} (${spans.length} span(s) from line ${spans[0]?.line}) has no GenAI span (no ai.* or gen_ai.* attribute); skipped`,
      );
      continue;
    }
    trajectories.push(readTrace(traceId, spans, options));
  }
  const matched = new Set(traces.keys());
  return {
    trajectories,
    warnings: [...warnings, ...unmatchedOutcomeWarnings(options.outcomes, matched)],
  };
}

function groupByTrace(spans: OtlpSpan[], file: string): Map<string, OtlpSpan[]> {
  const traces = new Map<string, OtlpSpan[]>();
  const seen = new Map<string, OtlpSpan>();
  for (const span of spans) {
    const key = `${span.traceId}/${span.spanId}`;
    const earlier = seen.get(key);
    if (earlier) {
      throw new DataFormatError(
        file,
        span.line,
        `${span.where}: span ${span.spanId} of trace ${span.traceId} appears twice (also on line ${earlier.line}); the same export is in the file twice`,
      );
    }
    seen.set(key, span);
    const trace = traces.get(span.traceId);
    if (trace) trace.push(span);
    else traces.set(span.traceId, [span]);
  }
  return traces;
}

function isGenAi(span: OtlpSpan): boolean {
  return Object.keys(span.attributes).some(
    (key) => key.startsWith('ai.') || key.startsWith('gen_ai.'),
  );
}

function isToolSpan(span: OtlpSpan): boolean {
  return (
    span.name === 'ai.toolCall' ||
    span.attributes['ai.operationId'] === 'ai.toolCall' ||
    span.attributes['gen_ai.operation.name'] === 'execute_tool'
  );
}

/** Spans in time order: by start, then end, then file order (the sort is stable). */
function byTime(spans: readonly OtlpSpan[]): OtlpSpan[] {
  return [...spans].sort((a, b) =>
    a.start !== b.start
      ? a.start < b.start
        ? -1
        : 1
      : a.end !== b.end
        ? a.end < b.end
          ? -1
          : 1
        : 0,
  );
}

function readTrace(traceId: string, spans: OtlpSpan[], options: TranscriptReadOptions): Trajectory {
  const { file } = options;
  const ordered = byTime(spans);
  const first = ordered[0] as OtlpSpan;
  const atSpan = <T>(span: OtlpSpan, read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (error instanceof TranscriptProblem || error instanceof TrajectoryFormatError) {
        throw new DataFormatError(
          file,
          span.line,
          `${span.where} (trace ${traceId}): ${error.message}`,
        );
      }
      throw error;
    }
  };
  const tools = ordered.filter(isToolSpan);
  const steps = tools.map((span) => atSpan(span, () => toolStep(span)));
  const answer = finalAnswer(ordered, tools.at(-1));
  if (answer !== undefined) steps.push({ action: formatAnswer(answer), observation: '' });
  return atSpan(first, () => {
    const instruction = ordered.map((s) => userRequest(s.attributes)).find((t) => t !== undefined);
    if (instruction === undefined) {
      throw new TranscriptProblem(
        'no user request recorded: no span carries ai.prompt, gen_ai.input.messages or gen_ai.prompt with a user message (the AI SDK records them unless experimental_telemetry.recordInputs is false)',
      );
    }
    if (steps.length === 0) {
      throw new TranscriptProblem(
        'the trace has neither tool calls nor a final answer; there is no action to import',
      );
    }
    return draftToTrajectory({
      id: `trace-${traceId}`,
      env: options.env,
      taskId: taskIdOf(instruction),
      instruction,
      steps,
      reward: traceOutcome(traceId, ordered, options).reward,
      policyId: modelOf(ordered) ?? UNKNOWN_TRACE_POLICY,
      startedAt: isoOf(first.start),
      endedAt: isoOf(ordered.reduce((end, s) => (s.end > end ? s.end : end), first.end)),
    });
  });
}

function toolStep(span: OtlpSpan): EpisodeStep {
  const a = span.attributes;
  const name = a['ai.toolCall.name'] ?? a['gen_ai.tool.name'];
  if (typeof name !== 'string' || name === '') {
    throw new TranscriptProblem(
      'a tool call span without a tool name (ai.toolCall.name or gen_ai.tool.name)',
    );
  }
  const args = a['ai.toolCall.args'] ?? a['gen_ai.tool.call.arguments'];
  if (args === undefined) {
    throw new TranscriptProblem(
      `tool call ${name} has no arguments recorded (ai.toolCall.args or gen_ai.tool.call.arguments); record inputs (the AI SDK does unless experimental_telemetry.recordInputs is false)`,
    );
  }
  const step: EpisodeStep = {
    action: toolCallAction(name, parseToolArguments(args)),
    observation: toolResult(span, name),
  };
  const id = a['ai.toolCall.id'] ?? a['gen_ai.tool.call.id'];
  if (typeof id === 'string' && id !== '') step.toolCallId = id;
  return step;
}

/** The tool's result as text: a recorded JSON string is unwrapped, other JSON kept as written. */
function toolResult(span: OtlpSpan, name: string): string {
  const result =
    span.attributes['ai.toolCall.result'] ?? span.attributes['gen_ai.tool.call.result'];
  if (result === undefined) {
    if (span.failed) return `error: ${span.errorMessage ?? 'the tool call failed'}`;
    throw new TranscriptProblem(
      `tool call ${name} has no result recorded (ai.toolCall.result or gen_ai.tool.call.result) and did not fail; record outputs (the AI SDK does unless experimental_telemetry.recordOutputs is false)`,
    );
  }
  if (typeof result !== 'string') return JSON.stringify(result);
  const parsed = parseJson(result);
  return typeof parsed === 'string' ? parsed : result;
}

/** The text of the response that ended last, if it ended after the last tool call. */
function finalAnswer(ordered: OtlpSpan[], lastTool: OtlpSpan | undefined): string | undefined {
  let answer: { text: string; end: bigint } | undefined;
  for (const span of ordered) {
    if (isToolSpan(span)) continue;
    const text = responseText(span.attributes);
    if (text !== undefined && (!answer || span.end >= answer.end)) answer = { text, end: span.end };
  }
  if (!answer || (lastTool && answer.end < lastTool.end)) return undefined;
  return answer.text;
}

function responseText(a: Record<string, unknown>): string | undefined {
  const texts = [
    a['ai.response.text'],
    textOfMessages(parseJson(a['gen_ai.output.messages']), 'assistant'),
    legacyMessageText(a['gen_ai.completion'], 'assistant'),
  ];
  return texts.find((t): t is string => typeof t === 'string' && t.trim() !== '');
}

/** The user's request in a span's prompt attributes, if it records one. */
function userRequest(a: Record<string, unknown>): string | undefined {
  const prompt = parseJson(a['ai.prompt']);
  const texts = [
    isObject(prompt) && typeof prompt.prompt === 'string' ? prompt.prompt : undefined,
    isObject(prompt) ? textOfMessages(prompt.prompt, 'user') : undefined,
    isObject(prompt) ? textOfMessages(prompt.messages, 'user') : undefined,
    textOfMessages(parseJson(a['gen_ai.input.messages']), 'user'),
    textOfMessages(parseJson(a['ai.prompt.messages']), 'user'),
    legacyMessageText(a['gen_ai.prompt'], 'user'),
  ];
  return texts.find((t): t is string => typeof t === 'string' && t.trim() !== '');
}

/**
 * The first `role` message's text among chat messages in any of the shapes spans record them:
 * `{role, content: "…"}`, `{role, content: [{type: "text", text}]}` (AI SDK) or
 * `{role, parts: [{type: "text", content}]}` (GenAI semantic conventions).
 */
function textOfMessages(messages: unknown, role: string): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  for (const message of messages) {
    if (!isObject(message) || message.role !== role) continue;
    if (typeof message.content === 'string') return message.content;
    const parts = Array.isArray(message.content) ? message.content : message.parts;
    if (!Array.isArray(parts)) continue;
    const text = parts
      .filter((p) => isObject(p) && p.type === 'text')
      .map((p) => (p as Record<string, unknown>).text ?? (p as Record<string, unknown>).content)
      .filter((t) => typeof t === 'string')
      .join('');
    if (text !== '') return text;
  }
  return undefined;
}

/** `gen_ai.prompt` / `gen_ai.completion` (deprecated): plain text or a JSON array of messages. */
function legacyMessageText(value: unknown, role: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  const parsed = parseJson(value);
  return Array.isArray(parsed) ? textOfMessages(parsed, role) : value;
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function traceOutcome(traceId: string, spans: OtlpSpan[], options: TranscriptReadOptions): Outcome {
  const found: Outcome[] = [];
  for (const span of spans) {
    for (const prefix of OUTCOME_ATTRIBUTE_PREFIXES) {
      const fields = Object.fromEntries(
        OUTCOME_FIELDS.map((f) => [f, span.attributes[prefix + f]]),
      );
      const outcome = outcomeFromFields(fields, `span ${span.where} attribute ${prefix}*`);
      if (outcome) found.push(outcome);
    }
  }
  const fromFile = options.outcomes?.get(traceId);
  if (fromFile) found.push(fromFile);
  const outcome = combineOutcomes(found);
  if (outcome) return outcome;
  throw new TranscriptProblem(
    `no outcome: set a span attribute ${OUTCOME_ATTRIBUTE_PREFIXES.map((p) => `${p}reward`).join(' or ')} (or …success / …outcome), or pass an outcomes file (--outcomes) with {"id": "${traceId}", "reward": …}`,
  );
}

function modelOf(spans: OtlpSpan[]): string | undefined {
  for (const span of spans) {
    for (const key of ['gen_ai.request.model', 'ai.model.id', 'gen_ai.response.model']) {
      const model = span.attributes[key];
      if (typeof model === 'string' && model !== '') return model;
    }
  }
  return undefined;
}

function isoOf(nanos: bigint): string {
  return new Date(Number(nanos / 1_000_000n)).toISOString();
}
