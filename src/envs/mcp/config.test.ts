import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DataFormatError } from '../../core/errors.ts';
import {
  loadMcpConfig,
  MCP_MAX_STEPS,
  MCP_START_TIMEOUT_MS,
  MCP_TIMEOUT_MS,
  parseMcpConfig,
} from './config.ts';
import { LIBRARY_STDIO_CONFIG, LIBRARY_TASKS, writeConfig } from './testing/library-fixtures.ts';

const stdio = { name: 'lib', command: 'node', args: ['server.js'], tasks: LIBRARY_TASKS };

function refusal(value: unknown): string {
  try {
    parseMcpConfig(value, '/cfg/lib.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('the config was accepted');
}

describe('MCP env configs', () => {
  it('read a stdio config with paths from its folder, and its task file', () => {
    const config = loadMcpConfig(LIBRARY_STDIO_CONFIG);
    expect(config).toMatchObject({
      name: 'library',
      server: {
        transport: 'stdio',
        command: 'node',
        args: ['--import', 'tsx', 'library-server.ts', '--stdio'],
        cwd: dirname(LIBRARY_STDIO_CONFIG),
      },
      tasksFile: LIBRARY_TASKS,
      reset: { kind: 'restart' },
      maxSteps: 12,
      timeoutMs: MCP_TIMEOUT_MS,
      startTimeoutMs: MCP_START_TIMEOUT_MS,
      hiddenTools: ['add_book', 'reset_library'],
    });
    expect(config.tasks).toHaveLength(6);
  });

  it('read an HTTP config with a reset tool, and fill the defaults', () => {
    const config = parseMcpConfig(
      {
        name: 'lib',
        url: 'http://127.0.0.1:9/mcp',
        headers: { authorization: 'Bearer x' },
        tasks: LIBRARY_TASKS,
        reset: { tool: 'reset_library' },
      },
      '/cfg/lib.json',
    );
    expect(config.server).toEqual({
      transport: 'http',
      url: 'http://127.0.0.1:9/mcp',
      headers: { authorization: 'Bearer x' },
    });
    expect(config.reset).toEqual({ kind: 'tool', tool: 'reset_library', arguments: {} });
    expect(config.maxSteps).toBe(MCP_MAX_STEPS);
    expect(config.hiddenTools).toEqual([]);
    const none = parseMcpConfig({ ...stdio, reset: 'none', cwd: 'srv' }, '/cfg/lib.json');
    expect(none.reset).toEqual({ kind: 'none' });
    expect(none.server).toMatchObject({ cwd: '/cfg/srv' });
  });

  it('refuse a wrong field, naming the file, the field and the format', () => {
    expect(refusal({ ...stdio, name: 'my lib' })).toMatch(
      /^\/cfg\/lib\.json: name: use letters, digits, _ \. - \(the env family is mcp:NAME\); an MCP env config is a JSON object/,
    );
    expect(refusal({ name: 'lib', tasks: LIBRARY_TASKS })).toMatch(
      /the config: give either "command" \(and "args"\) for a stdio server or "url"/,
    );
    expect(refusal({ ...stdio, url: 'http://h/mcp' })).toMatch(/give either "command"/);
    expect(refusal({ name: 'lib', url: 'ftp://h/mcp', tasks: 'x' })).toMatch(
      /url: expected an http\(s\) URL/,
    );
    expect(refusal({ name: 'lib', url: 'http://h/mcp', args: ['x'], tasks: 'x' })).toMatch(
      /args apply to a stdio server/,
    );
    expect(refusal({ ...stdio, headers: { a: 'b' } })).toMatch(/"headers" apply to "url"/);
    expect(refusal({ ...stdio, tasks: undefined })).toMatch(
      /tasks: expected the path of the task file/,
    );
    expect(refusal({ ...stdio, reset: 'reboot' })).toMatch(
      /reset: expected "restart", "none" or \{"tool": "NAME", "arguments": \{…\}\}/,
    );
    expect(refusal({ ...stdio, maxSteps: 2.5 })).toMatch(/maxSteps: expected a whole number/);
    expect(refusal({ ...stdio, maxSteps: 0 })).toMatch(/maxSteps: /);
    expect(refusal({ ...stdio, args: 'server.js' })).toMatch(/args: expected a list of strings/);
    expect(refusal({ ...stdio, comand: 'node' })).toMatch(/the config: unknown field "comand"/);
    expect(refusal([])).toMatch(/the config: /);
  });

  it('pass on a bad task file as a DataFormatError naming its line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dreamgym-mcp-'));
    writeFileSync(
      join(dir, 'tasks.jsonl'),
      '{"id": "a", "instruction": "x", "check": {"answer": {"exact": "1"}}}\n{"id": "b"}\n',
    );
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ ...stdio, tasks: 'tasks.jsonl' }));
    expect(() => loadMcpConfig(config)).toThrow(DataFormatError);
    expect(() => loadMcpConfig(config)).toThrow(`${join(dir, 'tasks.jsonl')}:2: instruction:`);
  });

  it('refuse a missing or non-JSON config file, saying what to write', () => {
    expect(() => loadMcpConfig('/nonexistent/mcp.json')).toThrow(
      /cannot read the MCP env config \/nonexistent\/mcp\.json \(ENOENT\); write mcp@PATH/,
    );
    const path = writeConfig({});
    writeFileSync(path, '{"name": ');
    expect(() => loadMcpConfig(path)).toThrow(new RegExp(`${path}: not JSON`));
  });
});
