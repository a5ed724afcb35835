import type { EnvEntry, EnvOptions } from '../env.ts';
import { ObservationLimit } from '../wrappers/observation-limit.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import { OpenEnvEnv } from './openenv-env.ts';
import { parseOpenEnvRef } from './ref.ts';
import { OpenEnvTaskSource } from './tasks.ts';

export { type ActionCodec, actionCodec } from './action-codec.ts';
export { ACTION_LIST_FIELDS, INSTRUCTION_FIELDS, readObservation } from './answers.ts';
export {
  type OpenEnvCallSite,
  OpenEnvCapacityError,
  OpenEnvConnectionError,
  OpenEnvError,
  OpenEnvProtocolError,
  OpenEnvServerError,
} from './errors.ts';
export { OpenEnvEnv, type OpenEnvEnvOptions } from './openenv-env.ts';
export { isOpenEnvRef, OPENENV_FAMILY, type OpenEnvRef, parseOpenEnvRef } from './ref.ts';
export { OPENENV_SPLITS, OpenEnvTaskSource, openenvTask, type SeedRange } from './tasks.ts';
export {
  DEFAULT_CLIENT_OPTIONS,
  type OpenEnvClientOptions,
  type TransportKind,
} from './transport.ts';

/**
 * The step limit of OpenEnv envs unless `options.maxSteps` says otherwise. OpenEnv servers end
 * their own episodes (`done`); this only keeps a server that never does from running forever.
 */
export const OPENENV_MAX_STEPS = 50;

/**
 * The registry entry of `openenv@URL`, `openenv:NAME@URL` (and their `openenv+http` forms): envs
 * inside {@link OPENENV_MAX_STEPS} (or `options.maxSteps`) and the observation limit
 * (`options.maxObservationChars`, default 20,000 characters), drawing `reset({ seed })` tasks from
 * `options.split`, and seeded task splits. Nothing contacts the server before the first `reset`.
 */
export function openenvEntry(ref: string): EnvEntry {
  const { family, url, transport, timeoutMs } = parseOpenEnvRef(ref);
  const over = transport === 'http' ? 'HTTP' : 'WebSocket sessions';
  return {
    name: family,
    description: `OpenEnv server at ${url} (${over}); actions and observations as its /schema says`,
    remote: true,
    maxSteps: OPENENV_MAX_STEPS,
    make: (o: EnvOptions) =>
      new TimeLimit(
        new ObservationLimit(
          new OpenEnvEnv({
            url,
            family,
            transport,
            ...(o.split !== undefined && { split: o.split }),
            ...(timeoutMs !== undefined && { client: { messageTimeoutMs: timeoutMs } }),
          }),
          o.maxObservationChars,
        ),
        o.maxSteps ?? OPENENV_MAX_STEPS,
      ),
    tasks: () => new OpenEnvTaskSource(family),
  };
}
