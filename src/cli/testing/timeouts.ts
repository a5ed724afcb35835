/**
 * How long tests wait on `dreamgym` child processes, in one place. A child pays Node's and tsx's
 * start-up and the import of every module the CLI uses before it does anything: a few seconds on
 * a quiet machine, 15–25 s at load 7 on 2 cores. Tests about behaviour run the CLI in process
 * ({@link runCliInProcess}) and need none of this.
 */
export const CHILD_TIMEOUT_MS = 150_000;

/** How long a served child (`dreamgym serve`, `view`) may take to print that it listens. */
export const CHILD_START_MS = 90_000;

/**
 * The timeout of a test that starts `children` CLI processes, one after another or together (on
 * 2 cores they share the CPU), on top of a minute for its own work.
 */
export function spawningTestTimeout(children = 1): number {
  return 60_000 + children * 90_000;
}
