import type { Observation } from '../core/types.ts';
import type { Embedder } from '../embed/embedder.ts';
import { HashingEmbedder } from '../embed/hashing-embedder.ts';

/** What retrieval compares: the state the agent is in, the action it takes, and its task. */
export interface TransitionKey {
  state: Pick<Observation, 'text'>;
  action: string;
  task: { instruction: string };
}

/**
 * Turns transition keys into vectors for the replay buffer. Vectors from encoders with different
 * ids never mix in one buffer.
 */
export interface KeyEncoder {
  readonly id: string;
  readonly dimensions: number;
  /** One vector per transition key, in order. */
  encode(keys: readonly TransitionKey[]): Promise<Float32Array[]>;
  /** Gets ready for a bulk batch ahead of time (starts a worker thread, say). */
  warm?(): Promise<void>;
  /** Frees what the encoder holds (a worker thread, say). */
  close?(): Promise<void>;
}

export interface EncoderWeights {
  state: number;
  action: number;
  task: number;
}

/** How much each part counts in the similarity. The action decides what happens next. */
export const DEFAULT_WEIGHTS: EncoderWeights = { state: 0.45, action: 0.35, task: 0.2 };

/**
 * Embeds a (state, action, task) key as the concatenation of the three parts' unit vectors,
 * scaled by √weight. The cosine of two such vectors is then the weighted mean of the parts'
 * cosines, so a long page cannot drown out the short action, which one text embedding would let
 * happen.
 */
export class TransitionEncoder implements KeyEncoder {
  readonly dimensions: number;
  readonly id: string;
  private readonly scales: [number, number, number];

  constructor(
    readonly embedder: Embedder = new HashingEmbedder({ dimensions: 128 }),
    readonly weights: EncoderWeights = DEFAULT_WEIGHTS,
  ) {
    const total = weights.state + weights.action + weights.task;
    if (!(total > 0) || [weights.state, weights.action, weights.task].some((w) => !(w >= 0))) {
      throw new RangeError('TransitionEncoder: weights must be ≥ 0 and not all 0.');
    }
    this.scales = [
      Math.sqrt(weights.state / total),
      Math.sqrt(weights.action / total),
      Math.sqrt(weights.task / total),
    ];
    this.dimensions = 3 * embedder.dimensions;
    this.id = `transition-v1(${embedder.id};${weights.state}/${weights.action}/${weights.task})`;
  }

  async encode(keys: readonly TransitionKey[]): Promise<Float32Array[]> {
    // Instructions and actions repeat across a batch's transitions: embed each distinct text once.
    const distinct = new Map<string, number>();
    const slots = keys.flatMap((k) =>
      [k.state.text, k.action, k.task.instruction].map((text) => {
        let slot = distinct.get(text);
        if (slot === undefined) {
          slot = distinct.size;
          distinct.set(text, slot);
        }
        return slot;
      }),
    );
    const vectors = await this.embedder.embed([...distinct.keys()]);
    const parts = slots.map((slot) => vectors[slot] as Float32Array);
    const d = this.embedder.dimensions;
    return keys.map((_, i) => {
      const out = new Float32Array(this.dimensions);
      for (let p = 0; p < 3; p++) {
        const part = parts[3 * i + p] as Float32Array;
        const scale = this.scales[p] as number;
        for (let j = 0; j < d; j++) out[p * d + j] = (part[j] as number) * scale;
      }
      return out;
    });
  }
}
