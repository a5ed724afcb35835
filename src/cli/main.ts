import { buildProgram } from './program.ts';
import { runProgram } from './run-program.ts';

// `dreamgym … | head` closes stdout early: stop quietly instead of crashing on EPIPE.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const code = await runProgram(buildProgram(), process.argv.slice(2));
// A failed run exits at once, even if something it started still holds the event loop; a
// successful one ends when its work has closed, so nothing it wrote is cut short.
if (code !== 0) process.exit(code);
