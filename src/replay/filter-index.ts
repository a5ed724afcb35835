import type Database from 'better-sqlite3';
import type { Provenance } from '../core/types.ts';

/** What retrieval can be narrowed by; see `ReplayBuffer.retrieve`. */
export interface RetrieveFilter {
  env?: string;
  provenance?: Provenance | readonly Provenance[];
  /** Only transitions of successful (true) or failed (false) episodes. */
  success?: boolean;
  /** Leave out the transitions of this trajectory (e.g. the episode being predicted). */
  excludeTrajectory?: string;
}

const PROVENANCES: readonly Provenance[] = ['real-offline', 'real-online', 'synthetic'];

/**
 * The filter columns of every transition, in typed arrays: its trajectory's env, provenance and
 * success. ANN candidates are checked here in microseconds, where asking SQLite cost a tenth of a
 * millisecond per search. Built from the database once, then extended with each committed add.
 */
export class FilterIndex {
  /** Trajectory rowid of each transition, by transition rowid. */
  private trajectoryOf = new Int32Array(1024);
  /** By trajectory rowid: env code + 1 (0: none), provenance code, success. */
  private envOf = new Uint16Array(1024);
  private provenanceOf = new Uint8Array(1024);
  private successOf = new Uint8Array(1024);
  private readonly envCodes = new Map<string, number>();

  static load(db: Database.Database): FilterIndex {
    const index = new FilterIndex();
    const trajectories = db
      .prepare('SELECT rowid, env, provenance, success FROM trajectories')
      .raw()
      .iterate() as Iterable<[number, string, Provenance, number]>;
    for (const [rowid, env, provenance, success] of trajectories)
      index.addTrajectory(rowid, env, provenance, success === 1);
    const transitions = db
      .prepare('SELECT rowid, trajectory FROM transitions')
      .raw()
      .iterate() as Iterable<[number, number]>;
    for (const [rowid, trajectory] of transitions) index.addTransition(rowid, trajectory);
    return index;
  }

  addTrajectory(rowid: number, env: string, provenance: Provenance, success: boolean): void {
    let code = this.envCodes.get(env);
    if (code === undefined) {
      code = this.envCodes.size + 1;
      if (code > 0xffff) throw new RangeError('FilterIndex: more than 65,535 env names.');
      this.envCodes.set(env, code);
    }
    this.envOf = withRoomFor(this.envOf, rowid);
    this.provenanceOf = withRoomFor(this.provenanceOf, rowid);
    this.successOf = withRoomFor(this.successOf, rowid);
    this.envOf[rowid] = code;
    this.provenanceOf[rowid] = PROVENANCES.indexOf(provenance);
    this.successOf[rowid] = success ? 1 : 0;
  }

  addTransition(rowid: number, trajectory: number): void {
    this.trajectoryOf = withRoomFor(this.trajectoryOf, rowid);
    this.trajectoryOf[rowid] = trajectory;
  }

  /**
   * A test for transition rowids passing `filter`; `excluded` is the rowid of the trajectory to
   * leave out, if any.
   */
  matcher(filter: RetrieveFilter, excluded?: number): (transition: number) => boolean {
    const env = filter.env === undefined ? undefined : (this.envCodes.get(filter.env) ?? -1);
    const provenances =
      filter.provenance === undefined
        ? undefined
        : new Set([filter.provenance].flat().map((p) => PROVENANCES.indexOf(checkProvenance(p))));
    const success = filter.success === undefined ? undefined : filter.success ? 1 : 0;
    return (transition) => {
      const t = this.trajectoryOf[transition];
      if (t === undefined || t === 0) return false;
      return (
        (env === undefined || this.envOf[t] === env) &&
        (provenances === undefined || provenances.has(this.provenanceOf[t] as number)) &&
        (success === undefined || this.successOf[t] === success) &&
        t !== excluded
      );
    };
  }
}

/** `p` if it is a provenance; else an error that lists them. */
export function checkProvenance(p: string): Provenance {
  if (!(PROVENANCES as readonly string[]).includes(p)) {
    throw new RangeError(`unknown provenance "${p}"; use real-offline, real-online or synthetic.`);
  }
  return p as Provenance;
}

/** `array`, or a copy twice as long or more, so that index `i` fits. */
function withRoomFor<T extends Int32Array | Uint16Array | Uint8Array>(array: T, i: number): T {
  if (i < array.length) return array;
  let length = array.length;
  while (length <= i) length *= 2;
  const grown = new (array.constructor as new (n: number) => T)(length);
  grown.set(array);
  return grown;
}
