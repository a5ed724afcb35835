/**
 * Loading node-llama-cpp and GGUF files. The package is an optional dependency (≈700 MB with its
 * GPU builds), so it is imported only here, lazily: users who install with
 * `npm ci --omit=optional` can use every other part of dreamgym.
 */
import { stat } from 'node:fs/promises';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { LlmBackendMissingError, LlmModelFileError } from './errors.ts';

export type NodeLlamaCpp = typeof import('node-llama-cpp');

/** Compute backend: 'auto' picks the best GPU found and falls back to the CPU; false forces CPU. */
export type LlamaGpu = 'auto' | false | 'cuda' | 'vulkan' | 'metal';

const PACKAGE = 'node-llama-cpp';

/** Imports node-llama-cpp, turning its absence into {@link LlmBackendMissingError}. */
export async function importNodeLlamaCpp(
  load: () => Promise<NodeLlamaCpp> = () => import('node-llama-cpp'),
): Promise<NodeLlamaCpp> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(PACKAGE))
      throw new LlmBackendMissingError(PACKAGE);
    throw error;
  }
}

const runtimes = new Map<string, Promise<Llama>>();

/** One llama.cpp runtime per GPU setting and process: loading its native binding takes ≈0.3 s. */
async function llamaRuntime(lib: NodeLlamaCpp, gpu: LlamaGpu): Promise<Llama> {
  const key = String(gpu);
  let runtime = runtimes.get(key);
  if (!runtime) {
    runtime = lib.getLlama({ gpu });
    runtimes.set(key, runtime);
    runtime.catch(() => runtimes.delete(key));
  }
  return runtime;
}

export interface LoadedGguf {
  lib: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
}

/** Loads a GGUF model; a missing or unreadable file becomes {@link LlmModelFileError}. */
export async function loadGguf(path: string, gpu: LlamaGpu = 'auto'): Promise<LoadedGguf> {
  try {
    if (!(await stat(path)).isFile()) throw new LlmModelFileError(path, 'not a file');
  } catch (error) {
    if (error instanceof LlmModelFileError) throw error;
    throw new LlmModelFileError(path, 'no such file');
  }
  const lib = await importNodeLlamaCpp();
  const llama = await llamaRuntime(lib, gpu);
  try {
    return { lib, llama, model: await llama.loadModel({ modelPath: path }) };
  } catch (error) {
    throw new LlmModelFileError(
      path,
      `cannot load it as a GGUF model (${(error as Error).message})`,
    );
  }
}
