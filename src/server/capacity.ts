/**
 * The cap on sessions open at once, wherever it is counted: in this process, or, for `serve
 * --workers N`, in the primary, so that `--max-sessions` is the server's cap and a worker with no
 * free slot does not refuse a session another worker could hold.
 */
export interface SessionCapacity {
  /** The cap, for messages. */
  readonly max: number;
  /** Takes a slot; false when all are taken. */
  acquire(): Promise<boolean>;
  /** Gives back a slot taken by {@link acquire}. */
  release(): void;
}

/**
 * Slots counted per holder (a worker's index), so that a holder that dies gives all of its slots
 * back at once.
 */
export class SlotLedger {
  private readonly held = new Map<number, number>();
  private taken = 0;

  constructor(readonly max: number) {}

  /** Slots taken now, by every holder. */
  get inUse(): number {
    return this.taken;
  }

  /** Takes a slot for `holder`; false when all are taken. */
  take(holder: number): boolean {
    if (this.taken >= this.max) return false;
    this.taken++;
    this.held.set(holder, (this.held.get(holder) ?? 0) + 1);
    return true;
  }

  /** Gives back one of `holder`'s slots (none if it holds none). */
  give(holder: number): void {
    const count = this.held.get(holder) ?? 0;
    if (count === 0) return;
    this.held.set(holder, count - 1);
    this.taken--;
  }

  /** Gives back every slot of `holder`, e.g. a worker that exited. */
  drop(holder: number): void {
    this.taken -= this.held.get(holder) ?? 0;
    this.held.delete(holder);
  }
}

/** A {@link SessionCapacity} of `max` slots counted in this process. */
export function localCapacity(max: number): SessionCapacity {
  const ledger = new SlotLedger(max);
  return {
    max,
    acquire: async () => ledger.take(0),
    release: () => ledger.give(0),
  };
}
