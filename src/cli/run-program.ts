import { type Command, CommanderError } from 'commander';
import { DreamGymError } from '../core/errors.ts';
import { CliExit } from './cli-exit.ts';

/**
 * Runs `program` on the user's arguments (without `node` and the script) and returns the exit
 * code, never exiting: the one path by which a run ends, shared by the `dreamgym` process
 * (`main.ts`) and the in-process runner of the tests. Commander's own exits (help, version, a bad
 * option) come back as their codes; a {@link DreamGymError} prints `error: MESSAGE` on stderr and
 * gives 1; any other error prints with its stack and gives 1, as an uncaught one would.
 */
export async function runProgram(program: Command, args: readonly string[]): Promise<number> {
  for (const command of withSubcommands(program)) command.exitOverride();
  try {
    await program.parseAsync([...args], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliExit) return error.code;
    if (error instanceof DreamGymError) {
      console.error(`error: ${error.message}`);
      return 1;
    }
    console.error(error);
    return 1;
  }
}

/** `command` and every command below it, parents first. */
export function withSubcommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(withSubcommands)];
}
