import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFormatError } from '../../core/errors.ts';
import { readOpenAiChat } from './openai-chat.ts';
import { readOutcomes } from './outcome.ts';

const fixtures = join(import.meta.dirname, 'testing');
const chatFile = join(fixtures, 'helpdesk.chat.jsonl');
const outcomesFile = join(fixtures, 'helpdesk.chat.outcomes.jsonl');
const importedAt = new Date('2025-03-11T08:00:00.000Z');

const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown, toolCalls?: unknown[]) => ({
  role: 'assistant',
  content,
  ...(toolCalls && { tool_calls: toolCalls }),
});
const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});
const toolReply = (id: unknown, content: unknown) => ({ role: 'tool', tool_call_id: id, content });

/** A conversation that reads: one lookup, then the answer; reward 1. */
const good = {
  id: 'ok',
  reward: 1,
  messages: [
    user('Where is order A1?'),
    assistant(null, [call('c1', 'lookup_order', { order_id: 'A1' })]),
    toolReply('c1', '{"status":"shipped"}'),
    assistant('It shipped.'),
  ],
};

const read = (lines: unknown[], options: { outcomes?: string } = {}) =>
  readOpenAiChat(lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'), {
    file: 'chats.jsonl',
    env: 'helpdesk',
    importedAt,
    ...(options.outcomes !== undefined && {
      outcomes: readOutcomes(options.outcomes, 'outcomes.jsonl'),
    }),
  });

describe('readOpenAiChat', () => {
  it('reads the helpdesk conversations into episodes: tool calls, their results, answers, outcomes', () => {
    const { trajectories, warnings } = readOpenAiChat(readFileSync(chatFile, 'utf8'), {
      file: chatFile,
      env: 'helpdesk',
      outcomes: readOutcomes(readFileSync(outcomesFile, 'utf8'), outcomesFile),
      importedAt,
    });
    expect(warnings).toEqual([]);
    expect(trajectories.map((t) => t.id)).toEqual([
      'chat-c-001',
      'chat-c-002',
      'chat-c-003',
      'chat-c-004',
    ]);
    expect(trajectories.every((t) => t.provenance === 'real-offline' && t.env === 'helpdesk')).toBe(
      true,
    );
    const [first, refund, cancel, address] = trajectories;
    expect(first?.task.instruction).toBe(
      'Where is my order A1001? It was supposed to arrive on Monday.',
    );
    expect(first?.initial.text).toBe(first?.task.instruction);
    expect(first?.policyId).toBe('gpt-4o-mini');
    expect(first?.startedAt).toBe(importedAt.toISOString());
    expect(first?.steps).toEqual([
      {
        action: 'lookup_order({"order_id":"A1001"})',
        observation: {
          text: '{"order_id":"A1001","status":"shipped","carrier":"UPS","eta":"2025-03-14"}',
          instruction: first?.task.instruction,
        },
        reward: 0,
        terminated: false,
        truncated: false,
        info: { toolCallId: 'call_1a' },
      },
      {
        action: 'answer[Your order A1001 shipped with UPS and should arrive on March 14.]',
        observation: { text: '', instruction: first?.task.instruction },
        reward: 1,
        terminated: true,
        truncated: false,
      },
    ]);
    // Text written beside a tool call is the step's reasoning; array content is joined.
    expect(refund?.task.instruction).toBe(
      'The kettle from order A1002 arrived cracked. I would like a refund.',
    );
    expect(refund?.steps[0]?.reasoning).toBe('Sorry about that. Let me check the order first.');
    expect(refund?.steps.map((s) => s.action)).toEqual([
      'lookup_order({"order_id":"A1002"})',
      'refund_order({"order_id":"A1002","reason":"arrived cracked"})',
      'answer[I have refunded $39.90 for the cracked kettle (refund R-551); it will show on your card in 3-5 days.]',
    ]);
    // metadata.success: false is reward 0.
    expect(cancel?.steps.map((s) => s.reward)).toEqual([0, 0, 0]);
    expect(cancel?.steps.at(-1)?.terminated).toBe(true);
    // A question to the user is an answer whose observation is the user's reply; parallel calls
    // are steps in call order, each observing its own result whatever order the results came in.
    expect(address?.steps.map((s) => [s.action, s.observation.text])).toEqual([
      [
        'answer[Which orders should I update? Please give me the order numbers.]',
        'user: A1004 and A1005',
      ],
      [
        'update_address({"order_id":"A1004","address":"12 Elm St, Springfield"})',
        '{"order_id":"A1004","address":"12 Elm St, Springfield","updated":true}',
      ],
      [
        'update_address({"order_id":"A1005","address":"12 Elm St, Springfield"})',
        '{"order_id":"A1005","address":"12 Elm St, Springfield","updated":true}',
      ],
      ['answer[Both orders, A1004 and A1005, will now ship to 12 Elm St, Springfield.]', ''],
    ]);
    expect(address?.steps.at(-1)?.reward).toBe(1); // from the outcomes file
  });

  it('gives a conversation without an id a stable id from its text, and one request one task', () => {
    const { id: _, ...anonymous } = good;
    const again = {
      ...anonymous,
      messages: [...anonymous.messages.slice(0, 3), assistant('Shipped!')],
    };
    const first = read([anonymous, again]).trajectories;
    const second = read([anonymous]).trajectories;
    expect(first[0]?.id).toMatch(/^chat-[0-9a-f]{16}$/);
    expect(second[0]?.id).toBe(first[0]?.id);
    expect(first[1]?.id).not.toBe(first[0]?.id);
    expect(first[1]?.task.id).toBe(first[0]?.task.id);
    expect(read([{ ...good, task_id: 'T-9' }]).trajectories[0]?.task.id).toBe('T-9');
  });

  it('adds a user message that follows tool results to the last result, and ends on a tool call if the conversation does', () => {
    const [t] = read([
      {
        id: 'x',
        outcome: 'failure',
        messages: [
          user('Cancel A1'),
          assistant(null, [call('c1', 'cancel_order', { order_id: 'A1' })]),
          toolReply('c1', [{ type: 'text', text: '{"cancelled":true}' }]),
          user('wait, no!'),
        ],
      },
    ]).trajectories;
    expect(t?.steps).toHaveLength(1);
    expect(t?.steps[0]?.observation.text).toBe('{"cancelled":true}\nuser: wait, no!');
    expect(t?.steps[0]).toMatchObject({ reward: 0, terminated: true });
  });

  it('accepts outcomes in every documented form, and refuses forms that disagree', () => {
    const reward = (fields: Record<string, unknown>) =>
      read([{ ...good, reward: undefined, ...fields }]).trajectories[0]?.steps.at(-1)?.reward;
    expect(reward({ reward: 0.25 })).toBe(0.25);
    expect(reward({ success: true })).toBe(1);
    expect(reward({ outcome: 'Resolved' })).toBe(1);
    expect(reward({ outcome: 'failed' })).toBe(0);
    expect(reward({ metadata: { outcome: 'success' } })).toBe(1);
    expect(reward({ success: true, outcome: 'success', reward: 1 })).toBe(1);
    expect(() => reward({ success: true, reward: 0 })).toThrow(
      /chats\.jsonl:1: outcomes disagree: reward 0 from the conversation's "reward" but 1 from the conversation's "success"; keep one/,
    );
    expect(() => read([good], { outcomes: '{"id": "ok", "reward": 0}' })).toThrow(
      /chats\.jsonl:1: outcomes disagree: .* but 0 from outcomes\.jsonl:1/,
    );
  });

  it('warns about outcomes that match no conversation', () => {
    const { warnings } = read([good], {
      outcomes: '{"id": "ok", "reward": 1}\n{"id": "okk", "reward": 1}',
    });
    expect(warnings).toEqual(['1 outcome(s) match no episode of this file: "okk"']);
  });

  const withMessages = (...messages: unknown[]) => ({ id: 'bad', reward: 1, messages });
  const malformed: [string, unknown, RegExp][] = [
    ['bad JSON', '{"messages": [', /not valid JSON .*each line holds one conversation/],
    ['not an object', '[1, 2]', /expected a JSON object \(one conversation per line/],
    [
      'missing messages',
      { id: 'bad', reward: 1 },
      /messages: missing; each line is one conversation/,
    ],
    ['empty messages', withMessages(), /messages: expected a non-empty array/],
    [
      'unknown role',
      withMessages(user('hi'), { role: 'function', name: 'f', content: '1' }),
      /messages\[1\]\.role: unknown role "function"; expected one of system, developer, user, assistant, tool/,
    ],
    ['message without role', withMessages({ content: 'hi' }), /messages\[0\]\.role: missing/],
    [
      'tool message with no matching call',
      withMessages(
        user('hi'),
        assistant(null, [call('c1', 'f', {})]),
        toolReply('c1', 'a'),
        toolReply('c9', 'b'),
      ),
      /messages\[3\]: tool message answers call "c9", but no earlier assistant message made a call with that id/,
    ],
    [
      'tool message without tool_call_id',
      withMessages(user('hi'), assistant(null, [call('c1', 'f', {})]), {
        role: 'tool',
        content: 'a',
      }),
      /messages\[2\]\.tool_call_id: expected the id of the call it answers/,
    ],
    [
      'a call answered twice',
      withMessages(
        user('hi'),
        assistant(null, [call('c1', 'f', {})]),
        toolReply('c1', 'a'),
        toolReply('c1', 'b'),
      ),
      /messages\[3\]: tool message answers call "c1" a second time/,
    ],
    [
      'a call never answered',
      withMessages(user('hi'), assistant(null, [call('c1', 'lookup', {})]), assistant('done')),
      /tool call "c1" \(lookup\) made in messages\[1\] has no tool message answering it before messages\[2\]/,
    ],
    [
      'the conversation ends on an unanswered call',
      withMessages(user('hi'), assistant(null, [call('c1', 'lookup', {})])),
      /tool call "c1" \(lookup\) .* before the conversation ends/,
    ],
    [
      'arguments not JSON',
      withMessages(user('hi'), assistant(null, [call('c1', 'f', '{"a": ')]), toolReply('c1', 'x')),
      /messages\[1\]\.tool_calls\[0\]\.function\.arguments: tool arguments are not valid JSON/,
    ],
    [
      'arguments not an object',
      withMessages(user('hi'), assistant(null, [call('c1', 'f', '[1]')]), toolReply('c1', 'x')),
      /tool arguments must be a JSON object, got \[1\]/,
    ],
    [
      'a tool name with a brace',
      withMessages(user('hi'), assistant(null, [call('c1', 'f{x}', {})]), toolReply('c1', 'x')),
      /tool name "f\{x\}" cannot be written as an action name\(\{\.\.\.\}\)/,
    ],
    [
      'a call id used twice',
      withMessages(user('hi'), assistant(null, [call('c1', 'f', {}), call('c1', 'g', {})])),
      /messages\[1\]\.tool_calls\[1\]\.id: "c1" was already used/,
    ],
    [
      'a non-function tool call',
      withMessages(user('hi'), assistant(null, [{ id: 'c1', type: 'custom', custom: {} }])),
      /tool_calls\[0\]\.type: only "function" tool calls can be imported/,
    ],
    [
      'an image part',
      withMessages(user([{ type: 'image_url', image_url: { url: 'x' } }]), assistant('ok')),
      /messages\[0\]\.content\[0\]: a part of type "image_url"; only text parts can be imported/,
    ],
    [
      'the assistant speaks first',
      withMessages(assistant('Hello!'), user('hi'), assistant('ok')),
      /messages\[0\]: assistant message before the first user message/,
    ],
    [
      'an empty assistant message',
      withMessages(user('hi'), assistant('')),
      /messages\[1\]: assistant message with neither text nor tool calls/,
    ],
    [
      'no assistant message',
      withMessages(user('hi')),
      /no assistant message after the user's request/,
    ],
    [
      'outcome missing',
      { id: 'bad', messages: good.messages },
      /no outcome: add "reward": 1, "success": true or "outcome": "success" \(or "failure"\) to the conversation, or pass an outcomes file \(--outcomes\) with \{"id": "bad"/,
    ],
    [
      'an outcome word not understood',
      { ...good, id: 'bad', reward: undefined, outcome: 'great' },
      /the conversation's "outcome": expected "success" or "failure" .* got "great"/,
    ],
    [
      'a reward that is not a number',
      { ...good, id: 'bad', reward: '1' },
      /the conversation's "reward": expected a finite number, got "1"/,
    ],
    ['a duplicate id', { ...good }, /id "ok" is already used on line 1; ids must be unique/],
  ];

  it.each(malformed)('refuses the whole file for %s, naming the line', (_, line, reason) => {
    let error: unknown;
    try {
      read([good, line, good]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(DataFormatError);
    expect((error as DataFormatError).line).toBe(2);
    expect((error as Error).message).toMatch(/^chats\.jsonl:2: /);
    expect((error as Error).message).toMatch(reason);
  });

  it('names the outcomes file when it lacks the line for a conversation', () => {
    expect(() =>
      read([{ id: 'c-7', messages: good.messages }], { outcomes: '{"id": "c-8", "reward": 1}' }),
    ).toThrow(/chats\.jsonl:1: no outcome: .*the outcomes file has no line for id "c-7"/);
  });
});
