import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DataFormatError, TaskError } from '../../core/errors.ts';
import { loadMcpTasks, McpTaskSource, mcpTask, mcpTaskSpec, parseMcpTasks } from './tasks.ts';
import { LIBRARY_TASKS } from './testing/library-fixtures.ts';

const good = '{"id": "a", "instruction": "Say hi.", "check": {"answer": {"exact": "hi"}}}';

/** The DataFormatError a file gives: its line and message. */
function refusal(text: string): { line: number; message: string } {
  try {
    parseMcpTasks(text, 'tasks.jsonl');
  } catch (error) {
    expect(error).toBeInstanceOf(DataFormatError);
    const e = error as DataFormatError;
    return { line: e.line, message: e.message };
  }
  throw new Error('the file was accepted');
}

describe('MCP task files', () => {
  it('read every line: setup calls, checks of each kind, splits', () => {
    const tasks = loadMcpTasks(LIBRARY_TASKS);
    expect(tasks.map((t) => t.id)).toEqual([
      'dune-copies',
      'lend-beloved',
      'who-has-emma',
      'lend-kindred',
      'middlemarch-author',
      'return-emma',
    ]);
    expect(tasks[3]).toEqual({
      id: 'lend-kindred',
      instruction: 'Lend Kindred by Octavia E. Butler to linus, then answer done.',
      split: 'train',
      setup: [{ tool: 'add_book', arguments: { title: 'Kindred', author: 'Octavia E. Butler' } }],
      check: {
        call: {
          tool: 'list_loans',
          arguments: { member: 'linus' },
          expect: { regex: '^b6 Kindred' },
        },
      },
    });
    expect(tasks[0]?.setup).toEqual([]);
    expect(tasks[4]?.check.answer).toEqual({ regex: '^\\s*george eliot\\.?\\s*$', flags: 'i' });
  });

  it('skip blank lines and default setup and arguments', () => {
    const tasks = parseMcpTasks(
      `\n${good}\n\n{"id": "b", "instruction": "x", "setup": [{"tool": "reset"}], "check": {"call": {"tool": "t", "expect": {"contains": "y"}}}}\r\n`,
      'f',
    );
    expect(tasks).toHaveLength(2);
    expect(tasks[1]?.setup).toEqual([{ tool: 'reset', arguments: {} }]);
    expect(tasks[1]?.check.call?.arguments).toEqual({});
  });

  it('are refused whole at the first bad line, which is named with the problem and the format', () => {
    const cases: Array<[text: string, line: number, message: RegExp]> = [
      [`${good}\n{"id": "b", "instruction": "x"`, 2, /tasks\.jsonl:2: not JSON/],
      [`${good}\n["a"]`, 2, /:2: the line: .*; each line is one JSON task/],
      [
        `${good}\n\n{"instruction": "x", "check": {"answer": {"exact": "1"}}}`,
        3,
        /:3: id: expected a string id/,
      ],
      [
        `{"id": "", "instruction": "x", "check": {"answer": {"exact": "1"}}}`,
        1,
        /id: the id is empty/,
      ],
      [
        `{"id": "a", "check": {"answer": {"exact": "1"}}}`,
        1,
        /instruction: expected the instruction/,
      ],
      [
        `{"id": "a", "instruction": "x"}`,
        1,
        /check: expected an object with "answer" and\/or "call"/,
      ],
      [`{"id": "a", "instruction": "x", "check": {}}`, 1, /check: give "answer"/],
      [
        `{"id": "a", "instruction": "x", "check": {"answer": {"equals": "1"}}}`,
        1,
        /check\.answer: expected one match: \{"exact": "…"\}/,
      ],
      [
        `{"id": "a", "instruction": "x", "check": {"answer": {"exact": "1", "contains": "1"}}}`,
        1,
        /check\.answer: expected one match/,
      ],
      [
        `{"id": "a", "instruction": "x", "check": {"answer": {"regex": "("}}}`,
        1,
        /check\.answer: the regex does not compile/,
      ],
      [
        `{"id": "a", "instruction": "x", "check": {"call": {"tool": "t"}}}`,
        1,
        /check\.call\.expect: expected one match/,
      ],
      [
        `{"id": "a", "instruction": "x", "split": "dev", "check": {"answer": {"exact": "1"}}}`,
        1,
        /split: expected "train" or "test"/,
      ],
      [
        `{"id": "a", "instruction": "x", "setup": {"tool": "t"}, "check": {"answer": {"exact": "1"}}}`,
        1,
        /setup: expected a list of tool calls/,
      ],
      [
        `{"id": "a", "instruction": "x", "setup": [{"tool": "two words"}], "check": {"answer": {"exact": "1"}}}`,
        1,
        /setup\[0\]\.tool: not a tool name/,
      ],
      [
        `{"id": "a", "instruction": "x", "setup": [{"tool": "t", "arguments": [1]}], "check": {"answer": {"exact": "1"}}}`,
        1,
        /setup\[0\]\.arguments: expected a JSON object/,
      ],
      [
        `{"id": "a", "instruction": "x", "chek": 1, "check": {"answer": {"exact": "1"}}}`,
        1,
        /the line: unknown field "chek"/,
      ],
      [
        `${good}\n${good}`,
        2,
        /:2: task id "a" is already used on line 1; give every task its own id/,
      ],
      ['', 1, /the file holds no task/],
      ['\n  \n', 1, /the file holds no task/],
    ];
    for (const [text, line, message] of cases) {
      const got = refusal(text);
      expect({ text, line: got.line }).toEqual({ text, line });
      expect(got.message).toMatch(message);
    }
  });

  it('a missing task file is a ConfigError that says where paths start', () => {
    expect(() => loadMcpTasks('/nonexistent/tasks.jsonl')).toThrow(
      /cannot read the MCP task file \/nonexistent\/tasks\.jsonl \(ENOENT\).*relative paths start at the config's folder/,
    );
  });
});

describe('MCP task source', () => {
  const definitions = parseMcpTasks(readFileSync(LIBRARY_TASKS, 'utf8'), LIBRARY_TASKS);
  const source = new McpTaskSource('mcp:library', definitions, 'library-tasks.jsonl');

  it('splits by the split field, tasks without one in both', () => {
    expect(source.tasks('train').map((t) => t.id)).toEqual([
      'mcp:library/dune-copies',
      'mcp:library/lend-beloved',
      'mcp:library/who-has-emma',
      'mcp:library/lend-kindred',
    ]);
    expect(source.tasks('test', 1).map((t) => t.id)).toEqual(['mcp:library/middlemarch-author']);
    expect(() => source.tasks('test', 3)).toThrow(ConfigError);
    const both = new McpTaskSource('mcp:x', parseMcpTasks(good, 'f'), 'f');
    expect(both.tasks('train')).toEqual(both.tasks('test'));
  });

  it('draws a fixed task per seed, from the split only', () => {
    expect(source.draw('train', 4)).toEqual(source.draw('train', 4));
    const drawn = new Set(Array.from({ length: 30 }, (_, seed) => source.draw('train', seed).id));
    expect(drawn.size).toBe(4);
    for (let seed = 0; seed < 10; seed++) {
      expect(source.draw('test', seed).id).toMatch(/middlemarch-author|return-emma/);
    }
    const testOnly = new McpTaskSource(
      'mcp:x',
      parseMcpTasks(good.replace('"check"', '"split": "test", "check"'), 'f'),
      'f',
    );
    expect(() => testOnly.draw('train', 0)).toThrow(
      /f has no train task; mark lines "split": "train"/,
    );
  });

  it('tasks carry their setup and check as spec, read back as given', () => {
    const task = mcpTask('mcp:library', definitions[3] as (typeof definitions)[number]);
    expect(task).toMatchObject({
      id: 'mcp:library/lend-kindred',
      env: 'mcp:library',
      origin: 'seed',
    });
    expect(mcpTaskSpec(task, 'mcp:library')).toEqual({
      setup: definitions[3]?.setup,
      check: definitions[3]?.check,
    });
  });

  it('refuses tasks of another env, without a spec, or with a malformed one', () => {
    const task = source.tasks('train')[0];
    if (!task) throw new Error('no task');
    expect(() => mcpTaskSpec(task, 'mcp:other')).toThrow(
      'task mcp:library/dune-copies is for env "mcp:library", not "mcp:other".',
    );
    expect(() => mcpTaskSpec({ ...task, spec: undefined }, 'mcp:library')).toThrow(
      /has no spec .*only run in a synthetic env/,
    );
    expect(() => mcpTaskSpec({ ...task, spec: { check: {} } }, 'mcp:library')).toThrow(TaskError);
  });
});
