import { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from './program.ts';
import { cliReference } from './reference.ts';

describe('cliReference', () => {
  it('lists every command and subcommand of the dreamgym program, with every visible option', () => {
    const program = buildProgram();
    const page = cliReference(program);
    const walk = (command: Command, path: string) => {
      for (const sub of command.commands) {
        const subPath = `${path} ${sub.name()}`;
        expect(page).toContain(`\`${subPath}\``);
        for (const option of sub.options.filter((o) => !o.hidden)) {
          expect(page).toContain(`\`${option.flags.replaceAll('|', '\\|')}\``);
        }
        walk(sub, subPath);
      }
    };
    walk(program, 'dreamgym');
    expect(program.commands.length).toBeGreaterThan(15);
  });

  it('gives usage, arguments, descriptions and defaults, escaped so Markdown and Vue read them as text', () => {
    const program = new Command('tool');
    program
      .command('go')
      .description('runs a <thing> | more {{ vue }}')
      .argument('<file>', 'the input')
      .addOption(new Option('--mode <m>', 'how').choices(['a', 'b']).default('a'))
      .option('--n <k>', 'count');
    const page = cliReference(program);
    expect(page).toContain('### `tool go`');
    expect(page).toContain('runs a &lt;thing&gt; \\| more &#123;&#123; vue &#125;&#125;');
    expect(page).toContain('tool go [options] <file>');
    expect(page).toContain('| `<file>` | the input |');
    expect(page).toContain('| `--mode <m>` | how (one of: a, b) | "a" |');
    expect(page).toMatch(/\| `--n <k>` \| count \| {2}\|/);
  });
});
