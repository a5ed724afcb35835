/**
 * Where branched rollouts start: states of the replay buffer's real episodes, the ground on which
 * the experience model replays what really happened rather than composing a guess.
 */
import type { Rng } from '../core/rng.ts';
import type { Step, Task, Trajectory } from '../core/types.ts';
import type { BranchPoint } from '../envs/env.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';

const REAL = ['real-offline', 'real-online'] as const;

/** How branch states are chosen. */
export const BRANCH_PICKS = ['uniform', 'divergence'] as const;
/**
 * `uniform`: over the buffer's real decisions. `divergence`: among those, where the current
 * policy would not do what the real episode did next (where it has something to learn).
 */
export type BranchPick = (typeof BRANCH_PICKS)[number];

/** A real decision to branch at: the state before a recorded step, with what led there. */
export interface BranchState {
  from: BranchPoint;
  task: Task;
  /** The recorded steps before it. */
  history: readonly Step[];
  /** The state the real episode acted in. */
  state: Trajectory['initial'];
  /** The action the real episode took there. */
  realAction: string;
}

/** What the current policy would do in a state (greedily), for the `divergence` pick. */
export type PolicyChoice = (state: BranchState) => Promise<string>;

/**
 * The real decisions of one env's episodes in a replay buffer: every state before a step of a
 * real episode, up to the step that ended it. Read once; `refresh` adds the real episodes the
 * buffer gained since.
 */
export class BranchPoints {
  /** Each real decision as (episode, step index). */
  private readonly decisions: Array<{ trajectory: Trajectory; t: number }> = [];
  private readonly known = new Set<string>();

  private constructor(
    private readonly buffer: ReplayBuffer,
    readonly env: string,
  ) {}

  /** The real decisions of `env` in `buffer`. */
  static async fromBuffer(buffer: ReplayBuffer, env: string): Promise<BranchPoints> {
    const points = new BranchPoints(buffer, env);
    await points.refresh();
    return points;
  }

  /** Real decisions to branch at. */
  get size(): number {
    return this.decisions.length;
  }

  /** Learns the real episodes added to the buffer since; returns how many. */
  async refresh(): Promise<number> {
    // Most calls find nothing new: the ids tell, without reading every episode again.
    const ids = await this.buffer.trajectoryIds({ env: this.env, provenance: REAL });
    if (ids.every((id) => this.known.has(id))) return 0;
    let added = 0;
    for (const provenance of REAL) {
      for await (const trajectory of this.buffer.trajectories({ env: this.env, provenance })) {
        if (this.known.has(trajectory.id)) continue;
        this.known.add(trajectory.id);
        // Every state before a step, up to the step that ended the episode.
        for (const [t, step] of trajectory.steps.entries()) {
          this.decisions.push({ trajectory, t });
          if (step.terminated) break;
        }
        added++;
      }
    }
    return added;
  }

  /**
   * `n` distinct branch states (fewer when the buffer has fewer), drawn with `rng`. With
   * `divergence`, states where `choose` differs from the real action come first, among a
   * uniform draw of `candidates` × n; the rest are filled uniformly.
   */
  async pick(
    n: number,
    rng: Rng,
    how: BranchPick = 'uniform',
    { choose, candidates = 4 }: { choose?: PolicyChoice; candidates?: number } = {},
  ): Promise<BranchPoint[]> {
    if (this.decisions.length === 0) {
      throw new RangeError(
        `no real episode of ${this.env} in the buffer to branch from; import offline episodes first (dreamgym buffer import).`,
      );
    }
    const point = ({ trajectory, t }: { trajectory: Trajectory; t: number }): BranchPoint => ({
      trajectory: trajectory.id,
      step: t,
    });
    if (how === 'uniform') return rng.sample(this.decisions, n).map(point);
    if (!choose) throw new RangeError('the divergence pick needs the policy’s choice (choose).');
    const drawn = rng.sample(this.decisions, n * candidates);
    const differs = await Promise.all(
      drawn.map(async (d) => {
        const state = branchState(d.trajectory, d.t);
        return (await choose(state)).trim() !== state.realAction.trim();
      }),
    );
    const ordered = [...drawn.filter((_, i) => differs[i]), ...drawn.filter((_, i) => !differs[i])];
    return ordered.slice(0, n).map(point);
  }
}

/** The state before step `t` of a real episode, with what led there and what came next. */
function branchState(trajectory: Trajectory, t: number): BranchState {
  return {
    from: { trajectory: trajectory.id, step: t },
    task: trajectory.task,
    history: trajectory.steps.slice(0, t),
    state: t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation,
    realAction: (trajectory.steps[t] as Step).action,
  };
}
