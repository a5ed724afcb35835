import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../../core/errors.ts';
import { type Tensor1D, type Tensor2D, tf, type Variable } from '../../core/tf.ts';
import { isActionTemplate, type Observation } from '../../core/types.ts';
import { fillTemplate } from '../../envs/actions.ts';
import type {
  DecisionEvaluation,
  PolicyAction,
  PolicyContext,
  RecordedDecision,
  TrainablePolicy,
} from '../policy.ts';
import {
  actionFeatureSize,
  actionFeatures,
  DEFAULT_FEATURE_SIZES,
  type Decision,
  type FeatureSizes,
  stateFeatureSize,
  stateFeatures,
} from './features.ts';
import { ChoiceNetwork, type NetworkWeights } from './network.ts';
import { proposeQueries } from './query-proposer.ts';

export interface ChoicePolicyOptions {
  /** Seeds the initial weights. */
  seed?: number;
  /** Hidden units of each MLP. Default 64. */
  hidden?: number;
  features?: FeatureSizes;
  /** Softmax temperature when sampling; 0 picks the best-scored action (evaluation). Default 1. */
  temperature?: number;
  /** Candidate queries proposed for a free-text template. Default 5. */
  queries?: number;
}

interface SavedPolicy {
  kind: 'choice-policy';
  version: 1;
  options: Required<Omit<ChoicePolicyOptions, 'temperature'>>;
  weights: NetworkWeights;
}

/**
 * A trainable policy for text envs that list their admissible actions: it scores every candidate
 * action from features of (instruction, page, action) with a small MLP, samples from the softmax,
 * and has a value head for PPO. Free-text templates (`search[<query>]`) are expanded into a few
 * candidate queries built from the instruction, so learning which query to send is a choice too.
 * Runs on CPU (TensorFlow.js, wasm backend).
 */
export class ChoicePolicy implements TrainablePolicy {
  readonly id: string;
  temperature: number;
  private readonly options: Required<Omit<ChoicePolicyOptions, 'temperature'>>;
  private readonly network: ChoiceNetwork;

  constructor(options: ChoicePolicyOptions = {}) {
    this.options = {
      seed: options.seed ?? 0,
      hidden: options.hidden ?? 64,
      features: options.features ?? DEFAULT_FEATURE_SIZES,
      queries: options.queries ?? 5,
    };
    this.temperature = options.temperature ?? 1;
    this.id = `choice(h=${this.options.hidden},seed=${this.options.seed})`;
    this.network = new ChoiceNetwork(
      actionFeatureSize(this.options.features),
      stateFeatureSize(this.options.features),
      this.options.hidden,
      this.options.seed,
    );
  }

  /** The concrete actions the policy chooses among in a state. */
  candidates(observation: Observation): string[] {
    const actions = observation.actions ?? [];
    if (actions.length === 0) {
      throw new ConfigError(
        'ChoicePolicy needs an env that lists admissible actions (observation.actions).',
      );
    }
    return actions.flatMap((a) =>
      isActionTemplate(a)
        ? proposeQueries(observation.instruction, this.options.queries).map((q) =>
            fillTemplate(a, q),
          )
        : [a],
    );
  }

  async act(observation: Observation, context: PolicyContext): Promise<PolicyAction> {
    const decision = { observation, history: context.history.map((s) => s.action) };
    const candidates = this.candidates(observation);
    const [logits, value] = tf.tidy(() => {
      const [actions, states] = this.featurize([{ decision, candidates }]);
      return [
        this.network.scores(actions, states).dataSync(),
        this.network.values(states.slice([0, 0], [1, -1])).dataSync()[0] as number,
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
    const groups = decisions.map((d) => {
      const own = this.candidates(d.observation);
      const candidates = own.some((a) => a === d.action) ? own : [...own, d.action];
      return {
        decision: { observation: d.observation, history: d.history },
        candidates,
        chosen: candidates.indexOf(d.action),
      };
    });
    const [actions, states] = this.featurize(groups);
    const scores = this.network.scores(actions, states);
    // Pad each decision's logits into a row of a [B, maxN] matrix; padding gets a large negative logit.
    const width = Math.max(...groups.map((g) => g.candidates.length));
    const gather: number[] = [];
    const chosen: number[] = [];
    let offset = 0;
    const padIndex = groups.reduce((s, g) => s + g.candidates.length, 0);
    for (const g of groups) {
      for (let j = 0; j < width; j++) gather.push(j < g.candidates.length ? offset + j : padIndex);
      chosen.push(offset + g.chosen);
      offset += g.candidates.length;
    }
    const padded = tf.concat([scores, tf.tensor1d([-1e9])]);
    const matrix = tf.reshape(tf.gather(padded, tf.tensor1d(gather, 'int32')), [
      groups.length,
      width,
    ]);
    const logZ = tf.logSumExp(matrix, 1);
    const logProbs = tf.sub(tf.gather(padded, tf.tensor1d(chosen, 'int32')), logZ) as Tensor1D;
    const logP = tf.sub(matrix, tf.expandDims(logZ, 1));
    const entropy = tf.neg(tf.sum(tf.mul(tf.exp(logP), logP), 1)) as Tensor1D;
    const firstRows = groups.map((_, i) =>
      groups.slice(0, i).reduce((s, g) => s + g.candidates.length, 0),
    );
    const values = this.network.values(
      tf.gather(states, tf.tensor1d(firstRows, 'int32')) as Tensor2D,
    );
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
      version: 1,
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
    if (saved.kind !== 'choice-policy' || saved.version !== 1) {
      throw new ConfigError(
        `${file} is not a version-1 choice policy (kind ${saved.kind}, version ${saved.version}).`,
      );
    }
    const policy = new ChoicePolicy({ ...saved.options, ...overrides });
    policy.network.importWeights(saved.weights);
    return policy;
  }

  dispose(): void {
    this.network.dispose();
  }

  private featurize(
    groups: ReadonlyArray<{ decision: Decision; candidates: readonly string[] }>,
  ): [Tensor2D, Tensor2D] {
    const { features } = this.options;
    const a = actionFeatureSize(features);
    const s = stateFeatureSize(features);
    const rows = groups.reduce((n, g) => n + g.candidates.length, 0);
    const actions = new Float32Array(rows * a);
    const states = new Float32Array(rows * s);
    let row = 0;
    for (const { decision, candidates } of groups) {
      const state = stateFeatures(decision, features);
      for (const candidate of candidates) {
        actions.set(actionFeatures(decision, candidate, features), row * a);
        states.set(state, row * s);
        row++;
      }
    }
    return [tf.tensor2d(actions, [rows, a]), tf.tensor2d(states, [rows, s])];
  }
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
