import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { type Tensor1D, type Tensor2D, tf, type Variable } from '../../core/tf.ts';
import type { Observation } from '../../core/types.ts';
import type {
  DecisionEvaluation,
  PolicyAction,
  PolicyContext,
  RecordedDecision,
  TrainablePolicy,
} from '../policy.ts';
import { DecisionMemo } from './decision-memo.ts';
import { choiceFeatures, defaultFeatureSizes, usesPageFeatures } from './families.ts';
import type { ChoiceFeatures, Decision } from './feature-set.ts';
import type { FeatureSizes } from './features.ts';
import { ChoiceNetwork, type NetworkWeights } from './network.ts';

/**
 * The choice policy's env family, seed, hidden size, feature sizes, sampling temperature and
 * template fills.
 */
export interface ChoicePolicyOptions {
  /**
   * The env family it acts in (`webshop`, `web:forum`, `support-desk`, …): shops, households and
   * web pages get the page features, any other family the generic ones (see `choiceFeatures`).
   * Default: none, which gets the page features.
   */
  family?: string;
  /** Seeds the initial weights. */
  seed?: number;
  /** Hidden units of each MLP. Default 64. */
  hidden?: number;
  /** Hash buckets. Default: the feature set's (page 128/64, generic 256/128). */
  features?: FeatureSizes;
  /** Softmax temperature when sampling; 0 picks the best-scored action (evaluation). Default 1. */
  temperature?: number;
  /** Page features: candidate queries proposed for a free-text template. Default 5. */
  queries?: number;
  /** Generic features: values proposed for each `<placeholder>` template. Default 30. */
  slotValues?: number;
}

/** The options a policy is saved with (all but the temperature, which is the caller's). */
type SavedOptions = Required<Omit<ChoicePolicyOptions, 'temperature' | 'family'>> &
  Pick<ChoicePolicyOptions, 'family'>;

interface SavedPolicy {
  kind: 'choice-policy';
  version: 4;
  options: SavedOptions;
  weights: NetworkWeights;
}

/**
 * A trainable policy for text envs that list their admissible actions: it scores every candidate
 * action from features of (instruction, observation, action, episode) with a small MLP, samples
 * from the softmax, and has a value head for PPO. Templates (`search[<query>]`,
 * `answer[<text>]`) are filled with values the feature set proposes, so choosing what to send is
 * a choice too. Runs on CPU (TensorFlow.js, wasm backend).
 */
export class ChoicePolicy implements TrainablePolicy {
  readonly id: string;
  temperature: number;
  private readonly options: SavedOptions;
  private readonly featureSet: ChoiceFeatures;
  private readonly network: ChoiceNetwork;
  private readonly cache = new WeakMap<RecordedDecision, FeaturizedDecision>();
  /**
   * The features `act` computed, by observation: the update featurizes the decisions the rollout
   * just made, and on web pages features cost as much as the network's update.
   */
  private readonly acted = new WeakMap<
    Observation,
    {
      history: readonly string[];
      candidates: readonly string[];
      features: Omit<FeaturizedDecision, 'chosen'>;
    }
  >();
  /** The candidates and features of every decision `act` met, for the next time it meets it. */
  private readonly memo = new DecisionMemo<{
    candidates: readonly string[];
    features: Omit<FeaturizedDecision, 'chosen'>;
  }>();

  constructor(options: ChoicePolicyOptions = {}) {
    this.options = {
      ...(options.family !== undefined && { family: options.family }),
      seed: options.seed ?? 0,
      hidden: options.hidden ?? 64,
      features: options.features ?? defaultFeatureSizes(options.family),
      queries: options.queries ?? 5,
      slotValues: options.slotValues ?? 30,
    };
    this.temperature = options.temperature ?? 1;
    this.featureSet = choiceFeatures(options.family, {
      sizes: this.options.features,
      queries: this.options.queries,
      slotValues: this.options.slotValues,
    });
    // Page-feature policies keep the id their trajectories were recorded with.
    const family = usesPageFeatures(options.family) ? '' : `${options.family},`;
    this.id = `choice(${family}h=${this.options.hidden},seed=${this.options.seed})`;
    this.network = new ChoiceNetwork(
      this.featureSet.actionSize,
      this.featureSet.stateSize,
      this.options.hidden,
      this.options.seed,
    );
  }

  /**
   * The concrete actions the policy chooses among in a state; `observations` are the episode's
   * replies so far (values they show can fill templates).
   */
  candidates(observation: Observation, observations: readonly Observation[] = []): string[] {
    if ((observation.actions ?? []).length === 0) {
      throw new ConfigError(
        'ChoicePolicy needs an env that lists admissible actions (observation.actions).',
      );
    }
    return this.featureSet.candidates({ observation, history: [], observations });
  }

  async act(observation: Observation, context: PolicyContext): Promise<PolicyAction> {
    const decision = {
      observation,
      history: context.history.map((s) => s.action),
      observations: context.history.map((s) => s.observation),
    };
    const { candidates, features } = this.memo.get(decision, () => {
      const candidates = this.candidates(observation, decision.observations);
      return { candidates, features: this.features(decision, candidates) };
    });
    this.acted.set(observation, { history: decision.history, candidates, features });
    const [logits, value] = tf.tidy(() => {
      const [actions, states, groupStates] = this.assemble([features]);
      return [
        this.network.scores(actions, states).dataSync(),
        this.network.values(groupStates).dataSync()[0] as number,
      ];
    });
    // Sampling at temperature T; T = 0 takes the best-scored action (log-probability at T = 1).
    const logProbs = logSoftmax(logits, this.temperature > 0 ? this.temperature : 1);
    const index = this.temperature > 0 ? sample(logProbs, context.rng.float()) : argmax(logits);
    return { action: candidates[index] as string, logProb: logProbs[index] as number, value };
  }

  /**
   * Differentiable log-probabilities (at temperature 1), entropies and values of recorded
   * decisions. A recorded action that is not among the policy's own candidates (an expert's
   * query, say) is added to them, so behaviour cloning can learn from any action.
   */
  evaluate(decisions: readonly RecordedDecision[]): DecisionEvaluation {
    const groups = decisions.map((d) => this.featurized(d));
    // Candidates are laid out padded, [B × width] rows, so no gather is needed: the wasm
    // backend has no kernel for gather's gradient. Padding rows get a large negative logit.
    const width = Math.max(...groups.map((g) => g.candidates));
    const [actions, states, groupStates] = this.assemble(groups, width);
    const mask = new Float32Array(groups.length * width);
    const chosen = new Float32Array(groups.length * width);
    groups.forEach((g, i) => {
      for (let j = g.candidates; j < width; j++) mask[i * width + j] = -1e9;
      chosen[i * width + g.chosen] = 1;
    });
    const logits = tf.add(
      tf.reshape(this.network.scores(actions, states), [groups.length, width]),
      tf.tensor2d(mask, [groups.length, width]),
    );
    const logP = tf.logSoftmax(logits);
    const logProbs = tf.sum(
      tf.mul(logP, tf.tensor2d(chosen, [groups.length, width])),
      1,
    ) as Tensor1D;
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logP), logP), 1)) as Tensor1D;
    const values = this.network.values(groupStates);
    return { logProbs, entropy, values };
  }

  get variables(): Variable[] {
    return this.network.variables;
  }

  /** Writes `policy.json` into `dir` atomically (a temporary file renamed into place). */
  async save(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const saved: SavedPolicy = {
      kind: 'choice-policy',
      version: 4,
      options: this.options,
      weights: this.network.exportWeights(),
    };
    const partial = join(dir, 'policy.json.partial');
    await writeFile(partial, JSON.stringify(saved));
    await rename(partial, join(dir, 'policy.json'));
  }

  /** A policy restored from {@link save}'s folder. */
  static async load(
    dir: string,
    overrides: Pick<ChoicePolicyOptions, 'temperature'> = {},
  ): Promise<ChoicePolicy> {
    const file = join(dir, 'policy.json');
    let saved: SavedPolicy;
    try {
      saved = JSON.parse(await readFile(file, 'utf8')) as SavedPolicy;
    } catch (error) {
      throw new ConfigError(
        `cannot read a choice policy from ${file}: ${(error as Error).message}. Pass the folder a training run saved it in.`,
      );
    }
    if (saved.kind !== 'choice-policy' || saved.version !== 4) {
      throw new ConfigError(
        `${file} is not a version-4 choice policy (kind ${saved.kind}, version ${saved.version}): earlier versions had other features; train it again.`,
      );
    }
    const policy = new ChoicePolicy({ ...saved.options, ...overrides });
    try {
      policy.network.importWeights(saved.weights ?? {});
    } catch (error) {
      policy.dispose();
      throw new ConfigError(
        `${file} does not hold this policy's weights: ${(error as Error).message} Train it again, or pass another folder.`,
      );
    }
    return policy;
  }

  /** An independent policy with the same options, temperature and weights. */
  copy(): ChoicePolicy {
    const policy = new ChoicePolicy({ ...this.options, temperature: this.temperature });
    policy.network.importWeights(this.network.exportWeights());
    return policy;
  }

  /** Frees the policy's tensors. */
  dispose(): void {
    this.network.dispose();
    this.memo.clear();
  }

  /**
   * The features of a recorded decision, computed once: PPO and BC evaluate the same decisions
   * every epoch, and features cost more than the network. A recorded action that is not among the
   * policy's own candidates (an expert's query, say) is added to them.
   */
  private featurized(d: RecordedDecision): FeaturizedDecision {
    const cached = this.cache.get(d);
    if (cached) return cached;
    const acted = this.acted.get(d.observation);
    if (acted && sameActions(acted.history, d.history) && acted.candidates.includes(d.action)) {
      const out = { ...acted.features, chosen: acted.candidates.indexOf(d.action) };
      this.cache.set(d, out);
      return out;
    }
    const own = this.candidates(d.observation, d.observations);
    const candidates = own.some((a) => a === d.action) ? own : [...own, d.action];
    const decision: Decision = {
      observation: d.observation,
      history: d.history,
      ...(d.observations && { observations: d.observations }),
    };
    const out = {
      ...this.features(decision, candidates),
      chosen: candidates.indexOf(d.action),
    };
    this.cache.set(d, out);
    return out;
  }

  /** Candidate features [n × A] and state features [S] of one decision. */
  private features(
    decision: Decision,
    candidates: readonly string[],
  ): Omit<FeaturizedDecision, 'chosen'> {
    return { candidates: candidates.length, ...this.featureSet.featurize(decision, candidates) };
  }

  /**
   * Candidate features as [rows, A], the matching state features as [rows, S], and one row of
   * state features per group [groups, S]. With `width`, each group takes exactly `width` rows
   * (zeros after its candidates).
   */
  private assemble(
    groups: ReadonlyArray<Omit<FeaturizedDecision, 'chosen'>>,
    width?: number,
  ): [Tensor2D, Tensor2D, Tensor2D] {
    const a = this.featureSet.actionSize;
    const s = this.featureSet.stateSize;
    const rows = width ? groups.length * width : groups.reduce((n, g) => n + g.candidates, 0);
    const actions = new Float32Array(rows * a);
    const states = new Float32Array(rows * s);
    const perGroup = new Float32Array(groups.length * s);
    let row = 0;
    groups.forEach((g, i) => {
      perGroup.set(g.state, i * s);
      actions.set(g.actions, row * a);
      for (let j = 0; j < g.candidates; j++) states.set(g.state, (row + j) * s);
      row += width ?? g.candidates;
    });
    return [
      tf.tensor2d(actions, [rows, a]),
      tf.tensor2d(states, [rows, s]),
      tf.tensor2d(perGroup, [groups.length, s]),
    ];
  }
}

/** A decision's features, ready to lay out in a batch. */
interface FeaturizedDecision {
  candidates: number;
  /** [candidates × A], row-major. */
  actions: Float32Array;
  state: Float32Array;
  /** Index of the recorded action among the candidates. */
  chosen: number;
}

/** The index whose cumulative probability first exceeds `u` ∈ [0, 1). */
function sample(logProbs: readonly number[], u: number): number {
  let r = u;
  for (let i = 0; i < logProbs.length; i++) {
    r -= Math.exp(logProbs[i] as number);
    if (r < 0) return i;
  }
  return logProbs.length - 1;
}

function sameActions(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function argmax(values: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < values.length; i++)
    if ((values[i] as number) > (values[best] as number)) best = i;
  return best;
}

function logSoftmax(logits: ArrayLike<number>, temperature: number): number[] {
  const scaled = Array.from(logits, (x) => x / temperature);
  const max = Math.max(...scaled);
  const logZ = max + Math.log(scaled.reduce((sum, x) => sum + Math.exp(x - max), 0));
  return scaled.map((x) => x - logZ);
}
