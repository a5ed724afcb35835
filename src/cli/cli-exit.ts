/**
 * Ends a command with a non-zero exit code after it has already said why (a run stopped early, a
 * server closed with failures). Commands throw it instead of touching `process.exit` or
 * `process.exitCode`, so the exit code leaves the program by one path, {@link runProgram}, whether
 * the program runs as the `dreamgym` process or inside a test.
 */
export class CliExit extends Error {
  override name = 'CliExit';
  constructor(readonly code: number) {
    super(`the command ended with exit code ${code}`);
  }
}
