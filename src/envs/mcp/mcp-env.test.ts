import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, EnvNotResetError, TaskError } from '../../core/errors.ts';
import type { Task } from '../../core/types.ts';
import { runEnvConformance } from '../conformance.ts';
import type { Env, StepResult } from '../env.ts';
import type { McpConfig } from './config.ts';
import { McpServerError } from './errors.ts';
import { mcpConfigEntry } from './index.ts';
import { McpEnv } from './mcp-env.ts';
import { mcpTask } from './tasks.ts';
import {
  httpConfig,
  LIBRARY_SOLUTIONS,
  type LibraryHttpServer,
  startLibraryHttpServer,
  stdioConfig,
  taskFileId,
} from './testing/library-fixtures.ts';

/** Server processes start in about half a second each; the conformance suite resets ~20 times. */
const LONG = 120_000;
const runner = {
  describe,
  it: (name: string, body: () => Promise<void>) => it(name, body, LONG),
};

const solve = async (_o: unknown, task: Task, history: readonly unknown[]) => {
  const action = LIBRARY_SOLUTIONS[taskFileId(task.id)]?.[history.length];
  if (!action) throw new Error(`no solution step ${history.length} for ${task.id}`);
  return action;
};

function taskOf(config: McpConfig, id: string): Task {
  const definition = config.tasks.find((t) => t.id === id);
  if (!definition) throw new Error(`no task ${id}`);
  return mcpTask(`mcp:${config.name}`, definition);
}

/** Plays `actions` from the reset of `task`, returning every step. */
async function play(env: Env, task: Task, actions: readonly string[]): Promise<StepResult[]> {
  await env.reset({ task });
  const steps: StepResult[] = [];
  for (const action of actions) steps.push(await env.step(action));
  return steps;
}

async function withEnv<T>(config: McpConfig, body: (env: Env) => Promise<T>): Promise<T> {
  const env = mcpConfigEntry(config).make({});
  try {
    return await body(env);
  } finally {
    await env.close();
  }
}

runEnvConformance(
  {
    name: 'mcp:library over stdio',
    makeEnv: () => mcpConfigEntry(stdioConfig()).make({}),
    task: taskOf(stdioConfig(), 'middlemarch-author'),
    solve,
  },
  runner,
);

describe('over Streamable HTTP', () => {
  let server: LibraryHttpServer;
  beforeAll(async () => {
    server = await startLibraryHttpServer();
  }, LONG);
  afterAll(() => server.close());

  runEnvConformance(
    {
      name: 'mcp:library over HTTP',
      makeEnv: () => mcpConfigEntry(httpConfig(server.url)).make({}),
      task: taskOf(stdioConfig(), 'return-emma'),
    },
    runner,
  );

  it(
    'the reset tool restores the state at each reset and is hidden from the agent',
    async () => {
      const config = httpConfig(server.url);
      await withEnv(config, async (env) => {
        const task = taskOf(config, 'lend-beloved');
        const { observation } = await env.reset({ task });
        expect(observation.actions?.join(' ')).not.toMatch(/reset_library|add_book/);
        expect(observation.text).not.toMatch(/reset_library|add_book/);
        await env.step('lend_book({"book_id": "b3", "member": "ada"})');
        expect((await env.step('list_loans()')).observation.text).toMatch(/Beloved — ada/);
        const hidden = await env.step('reset_library()');
        expect(hidden.info.invalidAction).toMatch(/no tool "reset_library"/);
        await env.reset({ task });
        expect((await env.step('list_loans()')).observation.text).toBe('b2 Emma — grace');
      });
    },
    LONG,
  );

  it(
    'restart mode over HTTP opens a new session, whose state is fresh on this server',
    async () => {
      const config = httpConfig(server.url, { reset: 'restart' });
      await withEnv(config, async (env) => {
        const task = taskOf(config, 'lend-beloved');
        const { observation } = await env.reset({ task });
        expect(observation.actions?.join(' ')).toMatch(/reset_library\(\)/);
        await env.step('lend_book({"book_id": "b3", "member": "ada"})');
        const [loans] = await play(env, task, ['list_loans({"member": "ada"})']);
        expect(loans?.observation.text).toBe('No loans for ada.');
      });
    },
    LONG,
  );

  it(
    'a misnamed reset tool is a ConfigError naming the server tools',
    async () => {
      const config = httpConfig(server.url, { reset: { tool: 'reboot' } });
      await withEnv(config, async (env) => {
        await expect(env.reset({ seed: 0 })).rejects.toThrow(ConfigError);
        await expect(env.reset({ seed: 0 })).rejects.toThrow(
          /has no reset tool "reboot" \(its tools: search_catalog, .*reset_library\); fix "reset" in the config/,
        );
      });
    },
    LONG,
  );
});

describe('MCP env episodes (the library over stdio)', () => {
  it(
    'every task of the file is solved for reward 1, with one check of each kind',
    async () => {
      const config = stdioConfig();
      await withEnv(config, async (env) => {
        for (const definition of config.tasks) {
          const task = mcpTask('mcp:library', definition);
          const steps = await play(env, task, LIBRARY_SOLUTIONS[definition.id] ?? []);
          const last = steps.at(-1);
          expect({ id: definition.id, reward: last?.reward, success: last?.info.success }).toEqual({
            id: definition.id,
            reward: 1,
            success: true,
          });
          expect(last?.terminated).toBe(true);
          expect(steps.slice(0, -1).every((s) => !s.terminated && s.reward === 0)).toBe(true);
        }
      });
    },
    LONG,
  );

  it(
    'a wrong answer or an unmet state check earns 0 and still ends the episode',
    async () => {
      const config = stdioConfig();
      await withEnv(config, async (env) => {
        const [wrong] = await play(env, taskOf(config, 'dune-copies'), ['answer[3]']);
        expect(wrong).toMatchObject({ reward: 0, terminated: true, truncated: false });
        expect(wrong?.info).toEqual({ answer: '3', success: false });
        expect(wrong?.observation).toMatchObject({ text: 'Answer submitted: 3', actions: [] });

        const [unmet] = await play(env, taskOf(config, 'lend-beloved'), ['answer[done]']);
        expect(unmet?.reward).toBe(0);
        expect(unmet?.info).toMatchObject({ checkResult: 'No loans for ada.', success: false });

        // Both parts must hold: the state is right but the answer is not.
        const steps = await play(env, taskOf(config, 'return-emma'), [
          'return_book({"book_id": "b2", "member": "grace"})',
          'answer[ok]',
        ]);
        expect(steps[1]?.info).toMatchObject({
          checkResult: 'No loans for grace.',
          success: false,
        });
        expect(steps[1]?.reward).toBe(0);
      });
    },
    LONG,
  );

  it(
    'invalid calls change nothing, earn 0 and say why',
    async () => {
      const config = stdioConfig();
      await withEnv(config, async (env) => {
        const { observation } = await env.reset({ task: taskOf(config, 'lend-beloved') });
        const cases: Array<[action: string, why: RegExp]> = [
          ['lend_book({"book_id": b3})', /arguments of lend_book are not JSON/],
          ['lend_book', /has no argument list; write lend_book\(\)/],
          [
            'borrow({"book_id": "b3"})',
            /no tool "borrow" on this server; the tools are search_catalog, book_status, lend_book, return_book, list_loans$/,
          ],
          ['add_book({"title": "X", "author": "Y"})', /no tool "add_book"/],
          [
            'lend_book({"book_id": "b3"})',
            /do not fit the input schema of lend_book: .*member.*; e\.g\. lend_book\(\{"book_id": "<book_id>", "member": "<member>"\}\)/,
          ],
          ['lend_book({"book_id": 3, "member": "ada"})', /book_id must be string/],
        ];
        for (const [action, why] of cases) {
          const result = await env.step(action);
          expect({ action, reward: result.reward, terminated: result.terminated }).toEqual({
            action,
            reward: 0,
            terminated: false,
          });
          expect(result.info.invalidAction).toMatch(why);
          expect(result.observation).toEqual(observation);
        }
        const loans = await env.step('list_loans()');
        expect(loans.observation.text).toBe('b2 Emma — grace');
        expect(loans.info).toEqual({});
      });
    },
    LONG,
  );

  it(
    'a tool that reports an error ran: its text is the observation, flagged in info',
    async () => {
      const config = stdioConfig();
      await withEnv(config, async (env) => {
        const [noCopy] = await play(env, taskOf(config, 'who-has-emma'), [
          'lend_book({"book_id": "b2", "member": "ada"})',
        ]);
        expect(noCopy?.observation.text).toBe('Tool error: No copy of Emma is available.');
        expect(noCopy?.info).toEqual({ toolError: true });
        expect(noCopy?.observation.actions).toContain('answer[<text>]');
      });
    },
    LONG,
  );

  it(
    'shows tools with signatures at reset, structured results as JSON, and runs setup calls',
    async () => {
      const config = stdioConfig();
      await withEnv(config, async (env) => {
        const { observation } = await env.reset({ task: taskOf(config, 'lend-kindred') });
        expect(observation.text).toContain(
          'Server instructions: A small lending library: find books, lend and return them.',
        );
        expect(observation.text).toContain('- list_loans(member?: string): Lists the loans');
        expect(observation.actions).toEqual([
          'search_catalog({"query": "<query>"})',
          'book_status({"book_id": "<book_id>"})',
          'lend_book({"book_id": "<book_id>", "member": "<member>"})',
          'return_book({"book_id": "<book_id>", "member": "<member>"})',
          'list_loans()',
          'answer[<text>]',
        ]);
        const found = await env.step('search_catalog({"query": "kindred"})');
        expect(found.observation.text).toBe('b6 | Kindred | Octavia E. Butler | 1 of 1 available');
        const status = await env.step('book_status({"book_id": "b1"})');
        expect(JSON.parse(status.observation.text)).toEqual({
          id: 'b1',
          title: 'Dune',
          copies: 2,
          available: 2,
          borrowers: [],
        });
      });
    },
    LONG,
  );

  it(
    'restart mode gives every episode a fresh server',
    async () => {
      const config = stdioConfig({ reset: 'restart' });
      await withEnv(config, async (env) => {
        const task = taskOf(config, 'lend-beloved');
        await play(env, task, ['lend_book({"book_id": "b3", "member": "ada"})']);
        const [loans] = await play(env, task, ['list_loans({"member": "ada"})']);
        expect(loans?.observation.text).toBe('No loans for ada.');
      });
    },
    LONG,
  );

  it(
    'a task naming a tool the server lacks, or whose setup fails, is refused at reset',
    async () => {
      const config = stdioConfig();
      await withEnv(config, async (env) => {
        const missing = mcpTask('mcp:library', {
          id: 'x',
          instruction: 'x',
          setup: [],
          check: { call: { tool: 'count_books', arguments: {}, expect: { exact: '5' } } },
        });
        await expect(env.reset({ task: missing })).rejects.toThrow(TaskError);
        await expect(env.reset({ task: missing })).rejects.toThrow(
          /task mcp:library\/x calls "count_books", which mcp:library \(.*\) does not have \(its tools: .*\); fix the task file/,
        );
        const failing = mcpTask('mcp:library', {
          id: 'y',
          instruction: 'y',
          setup: [{ tool: 'lend_book', arguments: { book_id: 'b2', member: 'ada' } }],
          check: { answer: { exact: 'y' } },
        });
        await expect(env.reset({ task: failing })).rejects.toThrow(
          /task mcp:library\/y: setup call lend_book\(\{"book_id":"b2","member":"ada"\}\) failed: "No copy of Emma is available\."\. Fix the task's "setup"/,
        );
      });
    },
    LONG,
  );
});

describe('MCP server failures are clear errors, never hangs', () => {
  it(
    'a stdio server that dies mid-call: McpServerError with its stderr; reset starts it again',
    async () => {
      const config = stdioConfig({ reset: 'restart' }, ['--crash-on', 'lend_book']);
      await withEnv(config, async (env) => {
        const task = taskOf(config, 'lend-beloved');
        await env.reset({ task });
        const error = await env
          .step('lend_book({"book_id": "b3", "member": "ada"})')
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(McpServerError);
        expect((error as Error).message).toMatch(
          /^mcp:library \(.*--crash-on lend_book\): tools\/call lend_book failed: .*Connection closed.*crashing on purpose in lend_book/s,
        );
        await expect(env.step('list_loans()')).rejects.toThrow(EnvNotResetError);
        await env.reset({ task });
        expect((await env.step('list_loans()')).observation.text).toBe('b2 Emma — grace');
      });
    },
    LONG,
  );

  it(
    'a server that stops answering times out as McpServerError naming timeoutMs; reset reconnects',
    async () => {
      const config = stdioConfig({ timeoutMs: 1500 }, ['--hang-on', 'list_loans']);
      await withEnv(config, async (env) => {
        await env.reset({ task: taskOf(config, 'who-has-emma') });
        await expect(env.step('list_loans()')).rejects.toThrow(
          /tools\/call list_loans failed: .*timed out.*raise "timeoutMs"/s,
        );
        // The reset tool cannot reset a connection that failed: reset reconnects.
        await env.reset({ task: taskOf(config, 'who-has-emma') });
        const found = await env.step('search_catalog({"query": "emma"})');
        expect(found.observation.text).toBe('b2 | Emma | Jane Austen | 0 of 1 available');
      });
    },
    LONG,
  );

  it(
    'an HTTP server that dies mid-call, then is gone: McpServerError naming the URL, each time',
    async () => {
      const server = await startLibraryHttpServer(['--crash-on', 'lend_book']);
      try {
        const config = httpConfig(server.url);
        await withEnv(config, async (env) => {
          const task = taskOf(config, 'lend-beloved');
          await env.reset({ task });
          await expect(env.step('lend_book({"book_id": "b3", "member": "ada"})')).rejects.toThrow(
            new RegExp(`^mcp:library at ${server.url}: tools/call lend_book failed`),
          );
          await expect(env.reset({ task })).rejects.toThrow(
            /initialize failed: .*Check that the server is running and serves MCP's Streamable HTTP transport/s,
          );
        });
      } finally {
        await server.close();
      }
    },
    LONG,
  );

  it(
    'a server that cannot start: a missing command, or one that exits at once',
    async () => {
      await withEnv(stdioConfig({ command: 'no-such-mcp-server', args: [] }), async (env) => {
        await expect(env.reset({ seed: 0 })).rejects.toThrow(
          /initialize failed: .*ENOENT.*"no-such-mcp-server" was not found: check "command"/s,
        );
      });
      const exits = stdioConfig({
        command: process.execPath,
        args: ['-e', 'process.stderr.write("no database configured"); process.exit(1)'],
      });
      await withEnv(exits, async (env) => {
        await expect(env.reset({ seed: 0 })).rejects.toThrow(
          /initialize failed: .*no database configured.*run it by hand to see its errors/s,
        );
      });
    },
    LONG,
  );
});

describe('huge tool results', () => {
  it(
    'are kept to the observation limit, 20,000 characters by default, and info says so',
    async () => {
      const config = stdioConfig({}, ['--bulky']);
      const task = taskOf(config, 'who-has-emma');
      const [huge] = await withEnv(config, (env) =>
        play(env, task, ['print_report({"chars": 4000000})']),
      );
      expect(huge?.observation.text).toMatch(
        /^Loans report: \.{19986}\n\[clipped: the first 20,000 of 4,000,000 characters\]$/,
      );
      expect(huge?.info.clipped).toBe(
        'the observation (4,000,000 characters) was over the limit of 20,000 characters (--max-observation-chars): it keeps its first 20,000',
      );
      const env = mcpConfigEntry(config).make({ maxObservationChars: 50 });
      try {
        const [small] = await play(env, task, ['print_report({"chars": 60})', 'answer[grace]']);
        expect(small?.observation.text).toBe(
          `Loans report: ${'.'.repeat(36)}\n[clipped: the first 50 of 60 characters]`,
        );
      } finally {
        await env.close();
      }
    },
    LONG,
  );

  it(
    "over 10 MB, the MCP SDK's limit for one stdio message, close the connection: the error says so",
    async () => {
      const config = stdioConfig({}, ['--bulky']);
      await withEnv(config, async (env) => {
        await env.reset({ task: taskOf(config, 'who-has-emma') });
        await expect(env.step('print_report({"chars": 11000000})')).rejects.toThrow(
          /tools\/call print_report failed: .*ReadBuffer exceeded maximum size of 10485760 bytes.*\. The server sent a message over 10 MB, the MCP SDK's limit for one message over stdio, and the SDK closed the connection: have the tool return less/s,
        );
      });
    },
    LONG,
  );
});

describe('McpEnv without the TimeLimit', () => {
  it(
    'nothing is started before the first reset, and close before it is fine',
    async () => {
      const env = new McpEnv({ config: stdioConfig({ command: 'no-such-mcp-server', args: [] }) });
      expect(env.name).toBe('mcp:library');
      await expect(env.step('list_loans()')).rejects.toThrow(EnvNotResetError);
      await env.close();
      await env.close();
    },
    LONG,
  );
});
