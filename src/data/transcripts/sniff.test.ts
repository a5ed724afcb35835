import { describe, expect, it } from 'vitest';
import { sniffFormat } from './sniff.ts';

describe('sniffFormat', () => {
  it('tells the formats apart by the first line', () => {
    expect(sniffFormat('{"format":"dreamgym.trajectory","version":1,"id":"a"}\n')).toBe(
      'trajectories',
    );
    expect(sniffFormat('\n{"id":"c-1","messages":[{"role":"user","content":"hi"}]}\n')).toBe(
      'openai-chat',
    );
    expect(sniffFormat('{"resourceSpans":[]}\n{"resourceSpans":[]}')).toBe('otlp');
    expect(sniffFormat('\uFEFF{"messages":[]}')).toBe('openai-chat');
  });

  it('finds the first known key of a pretty-printed or cut-off document', () => {
    expect(
      sniffFormat(
        '{\n  "resourceSpans": [\n    {\n      "scopeSpans": [{"spans": [{"attributes": [{"key": "messages"',
      ),
    ).toBe('otlp');
    expect(
      sniffFormat(
        '{"id": "c-1", "messages": [{"role": "user", "content": "a very long line cut he',
      ),
    ).toBe('openai-chat');
    expect(sniffFormat('{"format": "dreamgym.trajectory", "steps": [{"messages": [')).toBe(
      'trajectories',
    );
  });

  it('shows no format for other text', () => {
    expect(sniffFormat('')).toBeUndefined();
    expect(sniffFormat('\0\0\0\0')).toBeUndefined();
    expect(sniffFormat('{"format": "other", "messages": "not an array"}')).toBeUndefined();
    expect(sniffFormat('[1, 2, 3]')).toBeUndefined();
  });
});
