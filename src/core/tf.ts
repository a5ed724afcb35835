import { createRequire } from 'node:module';

/**
 * TensorFlow.js on its WebAssembly backend: CPU training without native builds or downloads.
 *
 * Loaded through `require` because the packages' ESM builds do not resolve under Node's ESM
 * loader; the CommonJS bundle of `@tensorflow/tfjs` also registers every gradient, which
 * `@tensorflow/tfjs-core` alone does not. Call {@link initTf} once before using `tf`.
 */
const require = createRequire(import.meta.url);

export const tf = require('@tensorflow/tfjs') as typeof import('@tensorflow/tfjs');
export type Tensor = import('@tensorflow/tfjs').Tensor;
export type Tensor1D = import('@tensorflow/tfjs').Tensor1D;
export type Tensor2D = import('@tensorflow/tfjs').Tensor2D;
export type Variable = import('@tensorflow/tfjs').Variable;

let ready: Promise<void> | undefined;

/** Selects the wasm backend (once); later calls return the same promise. */
export function initTf(): Promise<void> {
  ready ??= (async () => {
    require('@tensorflow/tfjs-backend-wasm');
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return ready;
}
