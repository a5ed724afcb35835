import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DataFormatError } from '../../core/errors.ts';
import { ObservationLimit } from '../wrappers/observation-limit.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { McpServerError } from './errors.ts';
import { isMcpRef, mcpEntry, parseMcpRef } from './index.ts';
import { McpEnv } from './mcp-env.ts';
import { LIBRARY_STDIO_CONFIG, LIBRARY_TASKS, writeConfig } from './testing/library-fixtures.ts';

describe('mcp@CONFIG', () => {
  it('recognises and parses the ref, relative paths from the working directory', () => {
    expect(isMcpRef('mcp@./library.json')).toBe(true);
    expect(isMcpRef('mcp:library')).toBe(false);
    expect(isMcpRef('webshop')).toBe(false);
    expect(parseMcpRef('mcp@conf/lib.json', '/home/u')).toBe('/home/u/conf/lib.json');
    expect(parseMcpRef('mcp@/abs/lib.json')).toBe('/abs/lib.json');
    expect(() => parseMcpRef('mcp@')).toThrow(ConfigError);
    expect(() => parseMcpRef('mcp@  ')).toThrow(/names no MCP env config; write mcp@PATH/);
  });

  it('is an entry of family mcp:NAME inside the config step limit, tasks from the task file', () => {
    const entry = mcpEntry(`mcp@${LIBRARY_STDIO_CONFIG}`);
    expect(entry.name).toBe('mcp:library');
    expect(entry.remote).toBe(true);
    expect(entry.maxSteps).toBe(12);
    expect(entry.expert).toBeUndefined();
    expect(entry.description).toBe(
      'the test library MCP server over stdio, restarted at every reset',
    );
    const env = entry.make({}) as TimeLimit;
    expect(env).toBeInstanceOf(TimeLimit);
    expect(env.maxSteps).toBe(12);
    expect(env.env).toBeInstanceOf(ObservationLimit);
    expect((env.env as ObservationLimit).maxChars).toBe(20_000);
    expect((env.env as ObservationLimit).env).toBeInstanceOf(McpEnv);
    expect(env.name).toBe('mcp:library');
    expect((entry.make({ maxSteps: 3 }) as TimeLimit).maxSteps).toBe(3);
    const tasks = entry.tasks({});
    expect(tasks.tasks('test').map((t) => t.id)).toEqual([
      'mcp:library/middlemarch-author',
      'mcp:library/return-emma',
    ]);
  });

  it('describes itself from the config when it has no description', () => {
    const path = writeConfig({ name: 'lib', url: 'http://127.0.0.1:9/mcp', tasks: LIBRARY_TASKS });
    expect(mcpEntry(`mcp@${path}`).description).toBe(
      `MCP tool server lib (http://127.0.0.1:9/mcp): tool calls name({json}) and answer[text]; 6 tasks from ${LIBRARY_TASKS}`,
    );
  });

  it('checks the config and task file at once but starts nothing before the first reset', async () => {
    const path = writeConfig({ name: 'lib', command: 'no-such-mcp-server', tasks: LIBRARY_TASKS });
    const entry = mcpEntry(`mcp@${path}`);
    const env = entry.make({ split: 'test' });
    await expect(env.reset()).rejects.toThrow(McpServerError);
    await env.close();

    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-mcp-'));
    writeFileSync(join(dir, 'tasks.jsonl'), '{"id": "a"}\n');
    writeFileSync(
      join(dir, 'c.json'),
      JSON.stringify({ name: 'x', url: 'http://h/', tasks: 'tasks.jsonl' }),
    );
    expect(() => mcpEntry(`mcp@${join(dir, 'c.json')}`)).toThrow(DataFormatError);
    expect(() => mcpEntry(`mcp@${join(dir, 'missing.json')}`)).toThrow(
      /cannot read the MCP env config/,
    );
  });
});
