/**
 * The offline mutators of the built-in envs behind one generator, chosen by the parent's env, so
 * the curriculum runs without an LLM.
 */
import type { TaskGenerator } from './generator.ts';
import { householdMutator } from './household-mutator.ts';
import { webshopMutator } from './webshop-mutator.ts';

const MUTATORS: Readonly<Record<string, TaskGenerator>> = {
  webshop: webshopMutator,
  household: householdMutator,
};

/** The built-in envs' offline mutators as one generator, chosen by the parent task's env. */
export const offlineMutators: TaskGenerator = {
  name: 'offline-mutators',
  async generate(request) {
    const mutator = MUTATORS[request.parent.env];
    if (!mutator) {
      return {
        tasks: [],
        warnings: [
          `no offline mutator for env "${request.parent.env}" (available: ${Object.keys(MUTATORS).join(', ')}); use the LLM task generator.`,
        ],
      };
    }
    return mutator.generate(request);
  },
};
