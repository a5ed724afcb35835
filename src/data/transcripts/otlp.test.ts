import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.ts';
import { readOpenAiChat } from './openai-chat.ts';
import { readOtlpGenAi } from './otlp.ts';
import { readOutcomes } from './outcome.ts';

const fixtures = join(import.meta.dirname, 'testing');
const fixture = (name: string) => join(fixtures, name);
const otlpFile = fixture('helpdesk.otlp.json');
const readFixture = (text = readFileSync(otlpFile, 'utf8')) =>
  readOtlpGenAi(text, {
    file: otlpFile,
    env: 'helpdesk',
    outcomes: readOutcomes(
      readFileSync(fixture('helpdesk.otlp.outcomes.jsonl'), 'utf8'),
      'outcomes.jsonl',
    ),
  });

type Attributes = Record<string, string | number | boolean>;

/** One OTLP JSON span; times in milliseconds after a fixed instant. */
function span(
  spanId: string,
  name: string,
  startMs: number,
  attributes: Attributes,
  extra: Record<string, unknown> = {},
) {
  const nanos = (ms: number) => String(1_741_680_000_000_000_000n + BigInt(ms) * 1_000_000n);
  return {
    traceId: 'aaaabbbbccccddddeeeeffff00001111',
    spanId,
    name,
    startTimeUnixNano: nanos(startMs),
    endTimeUnixNano: nanos(startMs + 100),
    attributes: Object.entries(attributes).map(([key, value]) => ({
      key,
      value:
        typeof value === 'string'
          ? { stringValue: value }
          : typeof value === 'boolean'
            ? { boolValue: value }
            : Number.isInteger(value)
              ? { intValue: String(value) }
              : { doubleValue: value },
    })),
    ...extra,
  };
}

const otlp = (spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });

const toolSpan = (spanId: string, startMs: number, name: string, args: unknown, result: unknown) =>
  span(spanId, 'ai.toolCall', startMs, {
    'ai.operationId': 'ai.toolCall',
    'ai.toolCall.name': name,
    'ai.toolCall.id': `call-${spanId}`,
    'ai.toolCall.args': JSON.stringify(args),
    'ai.toolCall.result': JSON.stringify(result),
  });

const rootSpan = (attributes: Attributes = {}) =>
  span('0000000000000001', 'ai.generateText', 0, {
    'ai.operationId': 'ai.generateText',
    'ai.model.id': 'test-model',
    'ai.prompt': JSON.stringify({ prompt: 'Where is order A1?' }),
    'ai.response.text': 'It shipped.',
    'ai.telemetry.metadata.reward': 1,
    ...attributes,
  });

const read = (document: unknown, options: { outcomes?: string } = {}) =>
  readOtlpGenAi(typeof document === 'string' ? document : JSON.stringify(document, null, 2), {
    file: 'spans.json',
    env: 'helpdesk',
    ...(options.outcomes !== undefined && {
      outcomes: readOutcomes(options.outcomes, 'outcomes.jsonl'),
    }),
  });

describe('readOtlpGenAi', () => {
  it('reads AI SDK and GenAI semantic-convention traces into episodes, one per trace', () => {
    const { trajectories, warnings } = readFixture();
    expect(warnings).toEqual([]);
    expect(trajectories.map((t) => t.id)).toEqual([
      'trace-1a0c4e2b9d8f4c3aa1b2c3d4e5f60718',
      'trace-2b1d5f3cae904d4bb2c3d4e5f6071829',
      'trace-3c2e6a4dbfa15e5cc3d4e5f60718293a',
      'trace-4c1e0b5a9d7f4e2a8b6c3d1e0f9a8b7c',
    ]);
    const [, , cancel, address] = trajectories;
    // A tool that threw (status ERROR, no result) is observed as its error.
    expect(cancel?.steps[1]?.observation.text).toBe(
      'error: order A1003 has already shipped and cannot be cancelled',
    );
    expect(cancel?.steps.map((s) => s.reward)).toEqual([0, 0, 0]); // ai.telemetry.metadata.success false
    // execute_tool spans, ordered by start time (the file lists the later one first).
    expect(address?.task.instruction).toBe(
      'Send orders A1004 and A1005 to 12 Elm St, Springfield.',
    );
    expect(address?.policyId).toBe('gpt-4.1-mini');
    expect(address?.steps.map((s) => [s.action, s.info?.toolCallId])).toEqual([
      ['update_address({"order_id":"A1004","address":"12 Elm St, Springfield"})', 'call_5a'],
      ['update_address({"order_id":"A1005","address":"12 Elm St, Springfield"})', 'call_5b'],
      ['answer[Both orders, A1004 and A1005, will now ship to 12 Elm St, Springfield.]', undefined],
    ]);
    expect(address?.steps.at(-1)).toMatchObject({ reward: 1, terminated: true }); // outcomes file
    expect(address?.startedAt).toBe('2025-03-11T08:00:30.000Z');
    expect(address?.endedAt).toBe('2025-03-11T08:00:31.500Z');
  });

  it('gives the same episodes as the OpenAI chat log of the same conversations', () => {
    const traces = readFixture().trajectories;
    const chats = readOpenAiChat(readFileSync(fixture('helpdesk.chat.jsonl'), 'utf8'), {
      file: 'chat',
      env: 'helpdesk',
      outcomes: readOutcomes(
        readFileSync(fixture('helpdesk.chat.outcomes.jsonl'), 'utf8'),
        'outcomes',
      ),
    }).trajectories;
    for (const i of [0, 1, 2]) {
      const [trace, chat] = [traces[i], chats[i]];
      expect(trace?.task).toEqual(chat?.task);
      expect(trace?.steps.map((s) => [s.action, s.reward, s.terminated])).toEqual(
        chat?.steps.map((s) => [s.action, s.reward, s.terminated]),
      );
    }
    // The chat log recorded the failed cancel's error as JSON; the trace as a failed span.
    const observations = (t: (typeof traces)[number] | undefined) =>
      t?.steps.map((s) => s.observation.text);
    expect(observations(traces[0])).toEqual(observations(chats[0]));
    expect(observations(traces[1])).toEqual(observations(chats[1]));
  });

  it('reads JSON Lines of exports the same, with a trace spread over several lines', () => {
    const document = JSON.parse(readFileSync(otlpFile, 'utf8'));
    const lines = document.resourceSpans.flatMap(
      (resourceSpans: { scopeSpans: { spans: unknown[] }[] }) =>
        resourceSpans.scopeSpans.flatMap((scope) =>
          scope.spans.map((one) => JSON.stringify(otlp([one]))),
        ),
    );
    expect(lines.length).toBeGreaterThan(20);
    const reversed = `${[...lines].reverse().join('\n')}\n`;
    expect(readFixture(reversed).trajectories.map((t) => t.steps)).toEqual(
      readFixture()
        .trajectories.reverse()
        .map((t) => t.steps),
    );
  });

  it('orders tool calls by start time, whatever order the spans are in', () => {
    const { trajectories } = read(
      otlp([
        toolSpan('0000000000000003', 300, 'refund', { id: 'A1' }, { ok: true }),
        rootSpan({ 'ai.response.text': '' }),
        toolSpan('0000000000000002', 200, 'lookup', { id: 'A1' }, 'shipped'),
      ]),
    );
    expect(trajectories[0]?.steps.map((s) => [s.action, s.observation.text])).toEqual([
      ['lookup({"id":"A1"})', 'shipped'], // a JSON string result is unwrapped
      ['refund({"id":"A1"})', '{"ok":true}'],
    ]);
  });

  it('reads the request from gen_ai.prompt and the outcome from dreamgym.* attributes', () => {
    const { trajectories } = read(
      otlp([
        span('0000000000000001', 'chat', 0, {
          'gen_ai.operation.name': 'chat',
          'gen_ai.prompt': 'Where is order A1?',
          'gen_ai.completion': 'It shipped.',
          'dreamgym.outcome': 'success',
        }),
      ]),
    );
    expect(trajectories[0]?.task.instruction).toBe('Where is order A1?');
    expect(trajectories[0]?.steps).toMatchObject([{ action: 'answer[It shipped.]', reward: 1 }]);
  });

  it('skips traces with no GenAI span, with a warning', () => {
    const http = {
      ...span('00000000000000f1', 'GET /health', 0, { 'http.method': 'GET' }),
      traceId: '99990000999900009999000099990000',
    };
    const { trajectories, warnings } = read(otlp([http, rootSpan()]));
    expect(trajectories).toHaveLength(1);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^trace 99990000999900009999000099990000 \(1 span\(s\) from line \d+\) has no GenAI span .*skipped$/,
      ),
    ]);
  });

  /** The line of the pretty-printed document where the span with this id starts. */
  const lineOf = (document: unknown, spanId: string) =>
    JSON.stringify(document, null, 2)
      .split('\n')
      .findIndex((line) => line.includes(`"spanId": "${spanId}"`)) + 1;

  const refusal = (document: unknown, options: { outcomes?: string } = {}) => {
    try {
      read(document, options);
    } catch (error) {
      expect(error).toBeInstanceOf(DataFormatError);
      return error as DataFormatError;
    }
    throw new Error('expected the file to be refused');
  };

  const bad = '0000000000000009';
  const malformed: [string, unknown, RegExp][] = [
    [
      'a span without traceId',
      otlp([rootSpan(), { ...toolSpan(bad, 100, 'f', {}, 1), traceId: undefined }]),
      /spans\[1\] "ai.toolCall": no traceId; episodes are grouped by trace/,
    ],
    [
      'a span without start time',
      otlp([rootSpan(), { ...toolSpan(bad, 100, 'f', {}, 1), startTimeUnixNano: undefined }]),
      /startTimeUnixNano: expected nanoseconds since the Unix epoch/,
    ],
    [
      'an attribute without a value',
      otlp([
        rootSpan(),
        { ...toolSpan(bad, 100, 'f', {}, 1), attributes: [{ key: 'ai.toolCall.name' }] },
      ]),
      /attributes\[0\] "ai.toolCall.name": expected an OTLP value such as \{"stringValue": "…"\}/,
    ],
    [
      'a tool span without a tool name',
      otlp([
        rootSpan(),
        span(bad, 'execute_tool', 100, { 'gen_ai.operation.name': 'execute_tool' }),
      ]),
      /a tool call span without a tool name \(ai.toolCall.name or gen_ai.tool.name\)/,
    ],
    [
      'a tool span without arguments',
      otlp([rootSpan(), span(bad, 'ai.toolCall', 100, { 'ai.toolCall.name': 'lookup' })]),
      /tool call lookup has no arguments recorded .*recordInputs/,
    ],
    [
      'a tool span without a result that did not fail',
      otlp([
        rootSpan(),
        span(bad, 'ai.toolCall', 100, { 'ai.toolCall.name': 'lookup', 'ai.toolCall.args': '{}' }),
      ]),
      /tool call lookup has no result recorded .*recordOutputs/,
    ],
    [
      'tool arguments that are not JSON',
      otlp([
        rootSpan(),
        span(bad, 'ai.toolCall', 100, {
          'ai.toolCall.name': 'f',
          'ai.toolCall.args': '{oops',
          'ai.toolCall.result': '1',
        }),
      ]),
      /tool arguments are not valid JSON/,
    ],
  ];

  it.each(malformed)(
    'refuses the whole file for %s, naming the span and its line',
    (_, document, reason) => {
      const error = refusal(document);
      expect(error.file).toBe('spans.json');
      expect(error.line).toBe(lineOf(document, bad));
      expect(error.message).toMatch(/resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[1\]/);
      expect(error.message).toMatch(reason);
    },
  );

  it('refuses traces it cannot make an episode of, naming the trace at its first span', () => {
    const noPrompt = otlp([rootSpan({ 'ai.prompt': '{}' })]);
    expect(refusal(noPrompt).message).toMatch(
      /^spans\.json:\d+: resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\] "ai.generateText" \(trace aaaabbbbccccddddeeeeffff00001111\): no user request recorded/,
    );
    expect(refusal(otlp([rootSpan({ 'ai.telemetry.metadata.reward': '' })])).message).toMatch(
      /ai.telemetry.metadata.\* "reward": expected a finite number/,
    );
    const noOutcome = otlp([
      span('0000000000000001', 'ai.generateText', 0, {
        'ai.prompt': JSON.stringify({ prompt: 'hi' }),
        'ai.response.text': 'hello',
      }),
    ]);
    expect(refusal(noOutcome).message).toMatch(
      /no outcome: set a span attribute ai.telemetry.metadata.reward or dreamgym.reward .*\{"id": "aaaabbbbccccddddeeeeffff00001111", "reward": …\}/,
    );
    expect(refusal(noOutcome, { outcomes: '{"id": "other", "reward": 1}' }).message).toMatch(
      /no outcome/,
    );
    expect(
      read(noOutcome, { outcomes: '{"id": "aaaabbbbccccddddeeeeffff00001111", "reward": 0.5}' })
        .trajectories[0]?.steps[0]?.reward,
    ).toBe(0.5);
    expect(
      refusal(otlp([rootSpan()]), {
        outcomes: '{"id": "aaaabbbbccccddddeeeeffff00001111", "reward": 0}',
      }).message,
    ).toMatch(/outcomes disagree: reward 1 from span .* but 0 from outcomes.jsonl:1/);
    expect(refusal(otlp([rootSpan({ 'ai.response.text': '' })])).message).toMatch(
      /neither tool calls nor a final answer/,
    );
  });

  it('refuses a span given twice, and files that are not OTLP JSON, naming the line', () => {
    const twice = otlp([
      rootSpan(),
      toolSpan(bad, 100, 'f', {}, 1),
      toolSpan(bad, 100, 'f', {}, 1),
    ]);
    const error = refusal(twice);
    expect(error.message).toMatch(
      /span 0000000000000009 of trace .* appears twice \(also on line \d+\)/,
    );
    expect(refusal({ spans: [] }).message).toMatch(
      /^spans\.json:1: resourceSpans: missing; expected an OTLP JSON trace export \{"resourceSpans"/,
    );
    const pretty = JSON.stringify(otlp([rootSpan()]), null, 2).replace(
      '"ai.generateText"',
      '"ai.generateText",,',
    );
    expect(refusal(pretty).line).toBe(pretty.split('\n').findIndex((l) => l.includes(',,')) + 1);
    const lines = `${JSON.stringify(otlp([rootSpan()]))}\n{"resourceSpans": [\n`;
    expect(refusal(lines).message).toMatch(
      /^spans\.json:2: not valid JSON .*each line holds one OTLP JSON trace export/,
    );
  });
});
