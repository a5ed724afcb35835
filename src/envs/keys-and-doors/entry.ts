import type { EnvEntry } from '../env.ts';
import { KeysAndDoorsExpert } from './expert.ts';
import {
  KEYS_AND_DOORS_MAX_STEPS,
  KeysAndDoorsEnv,
  makeKeysAndDoors,
} from './keys-and-doors-env.ts';
import { KEYS_AND_DOORS } from './tasks.ts';

/** The `keys-and-doors` env: a text game of rooms, locked doors, keys and closed containers. */
export const keysAndDoorsEntry: EnvEntry = {
  name: KEYS_AND_DOORS,
  description:
    'text game with hidden state: go <dir>, open/close <container>, take/drop <item>, put <item> in <container>, unlock <door> with <key>; wrong keys jam doors',
  maxSteps: KEYS_AND_DOORS_MAX_STEPS,
  make: (o) =>
    makeKeysAndDoors({
      ...(o.split !== undefined && { split: o.split }),
      ...(o.maxSteps !== undefined && { maxSteps: o.maxSteps }),
    }),
  tasks: () => new KeysAndDoorsEnv(),
  expert: ({ epsilon }) => new KeysAndDoorsExpert({ epsilon }),
};
