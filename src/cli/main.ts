import { CommanderError } from 'commander';
import { DreamGymError } from '../core/errors.ts';
import { buildProgram } from './program.ts';

// `dreamgym … | head` closes stdout early: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) process.exit(error.exitCode);
  if (error instanceof DreamGymError) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
