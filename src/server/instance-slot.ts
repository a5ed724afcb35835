/**
 * Which session ids are this server instance's when several instances (each perhaps with
 * `--workers`) sit behind one load balancer: instance I of N holds the ids with `id mod N = I`,
 * and its worker w of W the ids with `id mod N·W = I + N·w` — still `I` mod N, so a balancer
 * needs to know only N to route a session's requests to its instance.
 */
import { ConfigError } from '../core/errors.ts';
import type { IdSlot } from './sessions.ts';
import type { WorkerRouting } from './worker-routing.ts';

/** `I/N` (`--instance`), checked: 0 ≤ I < N. */
export function parseInstance(text: string): IdSlot {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const slot = match ? { index: Number(match[1]), count: Number(match[2]) } : undefined;
  if (!slot) {
    throw new ConfigError(
      `--instance is I/N (this instance's index among N behind one load balancer, e.g. 0/3), got "${text}".`,
    );
  }
  return checkInstance(slot);
}

/** Fails with the fix unless 0 ≤ index < count. */
export function checkInstance(slot: IdSlot): IdSlot {
  const { index, count } = slot;
  if (
    !(
      Number.isInteger(count) &&
      count >= 1 &&
      Number.isInteger(index) &&
      index >= 0 &&
      index < count
    )
  ) {
    throw new ConfigError(
      `--instance is I/N with 0 ≤ I < N (this instance's index among N), got ${index}/${count}.`,
    );
  }
  return slot;
}

/**
 * The id slot (and worker sockets) of this process: the instance's slot, split between its
 * workers if it has any. Requests for other instances' sessions never reach the worker routing
 * (`ServerHealth` answers them), so the sockets of the other instances' slots stay empty.
 */
export function processSlot(
  instance: IdSlot | undefined,
  workers: WorkerRouting | undefined,
): WorkerRouting | undefined {
  if (!instance || instance.count === 1) return workers;
  if (!workers) return { ...instance, sockets: [] };
  const sockets: string[] = [];
  for (const [w, socket] of workers.sockets.entries()) {
    sockets[instance.index + instance.count * w] = socket;
  }
  return {
    index: instance.index + instance.count * workers.index,
    count: instance.count * workers.count,
    sockets,
  };
}
