import { Rng } from '../../core/rng.ts';
import { type Tensor1D, type Tensor2D, tf, type Variable } from '../../core/tf.ts';

/** Weights as plain numbers, for checkpoints. */
export type NetworkWeights = Record<string, { shape: number[]; values: number[] }>;

/**
 * Two small MLPs: a scorer that maps [action features ; state features] to a logit, and a value
 * head that maps state features to V(s). One hidden ReLU layer each, He-initialised from our seeded
 * Rng so the same seed gives the same network.
 */
export class ChoiceNetwork {
  private readonly weights: Record<string, Variable>;

  constructor(
    readonly actionInputs: number,
    readonly stateInputs: number,
    readonly hidden: number,
    seed: number,
  ) {
    const rng = new Rng(seed).fork('choice-network');
    const dense = (name: string, inputs: number, outputs: number) => {
      const std = Math.sqrt(2 / inputs);
      const values = Float32Array.from({ length: inputs * outputs }, () => std * gaussian(rng));
      return {
        [`${name}.w`]: tf.variable(tf.tensor2d(values, [inputs, outputs])),
        [`${name}.b`]: tf.variable(tf.zeros([outputs])),
      };
    };
    this.weights = {
      ...dense('score1', actionInputs + stateInputs, hidden),
      ...dense('score2', hidden, 1),
      ...dense('value1', stateInputs, hidden),
      ...dense('value2', hidden, 1),
    };
  }

  get variables(): Variable[] {
    return Object.values(this.weights);
  }

  /** Logits of candidate actions: `actions` [n, A] paired row by row with `states` [n, S]. */
  scores(actions: Tensor2D, states: Tensor2D): Tensor1D {
    return tf.tidy(() => {
      const h = tf.relu(
        tf.add(
          inputMatMul(tf.concat([actions, states], 1), this.w('score1.w') as Tensor2D),
          this.w('score1.b'),
        ),
      );
      return tf.reshape(
        tf.add(tf.matMul(h, this.w('score2.w')), this.w('score2.b')),
        [-1],
      ) as Tensor1D;
    });
  }

  /** V(s) for each row of `states` [n, S]. */
  values(states: Tensor2D): Tensor1D {
    return tf.tidy(() => {
      const h = tf.relu(tf.add(tf.matMul(states, this.w('value1.w')), this.w('value1.b')));
      return tf.reshape(
        tf.add(tf.matMul(h, this.w('value2.w')), this.w('value2.b')),
        [-1],
      ) as Tensor1D;
    });
  }

  exportWeights(): NetworkWeights {
    return Object.fromEntries(
      Object.entries(this.weights).map(([name, v]) => [
        name,
        { shape: v.shape, values: Array.from(v.dataSync()) },
      ]),
    );
  }

  importWeights(weights: NetworkWeights): void {
    for (const [name, variable] of Object.entries(this.weights)) {
      const saved = weights[name];
      if (!saved || saved.shape.join('x') !== variable.shape.join('x')) {
        throw new Error(
          `checkpoint weight ${name} has shape ${saved?.shape.join('x') ?? 'none'}, the network needs ${variable.shape.join('x')}: the checkpoint was made with other feature sizes or hidden units.`,
        );
      }
      const size = variable.shape.reduce((a, b) => a * b, 1);
      if (!Array.isArray(saved.values) || saved.values.length !== size) {
        throw new Error(
          `checkpoint weight ${name} has ${saved.values?.length ?? 0} values, its shape needs ${size}.`,
        );
      }
      if (!saved.values.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new Error(`checkpoint weight ${name} holds a value that is not a finite number.`);
      }
      variable.assign(tf.tensor(saved.values, saved.shape));
    }
  }

  dispose(): void {
    for (const v of Object.values(this.weights)) v.dispose();
  }

  private w(name: string): Variable {
    return this.weights[name] as Variable;
  }
}

/**
 * `inputs · weights` for a constant `inputs` (features: no gradient flows to them), whose weight
 * gradient is computed as (dyᵀ · inputs)ᵀ rather than TensorFlow.js's inputsᵀ · dy. The wasm
 * backend runs a product with a transposed operand through a naive loop, ~6× slower than the
 * XNNPACK product it uses otherwise; with thousands of candidate rows per minibatch that loop was
 * most of an update's time. Same gradient; the sum runs in another order.
 */
export const inputMatMul = tf.customGrad((...args) => {
  const [inputs, weights, save] = args as unknown as [Tensor2D, Tensor2D, (t: Tensor2D[]) => void];
  save([inputs]);
  return {
    value: tf.matMul(inputs, weights),
    gradFunc: (dy, saved) => {
      const [x] = saved as Tensor2D[];
      return [
        tf.zerosLike(x as Tensor2D),
        tf.transpose(tf.matMul(tf.transpose(dy as Tensor2D), x as Tensor2D)),
      ];
    },
  };
}) as (inputs: Tensor2D, weights: Tensor2D) => Tensor2D;

/** A standard normal draw (Box–Muller). */
function gaussian(rng: Rng): number {
  const u = 1 - rng.float();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.float());
}
