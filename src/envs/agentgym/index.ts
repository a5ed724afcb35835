import { ConfigError } from '../../core/errors.ts';
import type { EnvEntry, EnvOptions } from '../env.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import type { AgentGymEnv, AgentGymEnvOptions } from './agentgym-env.ts';
import { AgentGymAlfWorldEnv } from './alfworld-client.ts';
import { AGENTGYM_ENVS, type AgentGymEnvName, AgentGymTaskSource } from './tasks.ts';
import { AgentGymWebShopEnv } from './webshop-client.ts';

export { AgentGymEnv, type AgentGymEnvOptions } from './agentgym-env.ts';
export { AgentGymAlfWorldEnv } from './alfworld-client.ts';
export { AgentGymHttpError, AgentGymProtocolError, AgentGymServerError } from './errors.ts';
export type { HttpOptions } from './http.ts';
export { AGENTGYM_SPLITS, AgentGymTaskSource, agentgymTask } from './tasks.ts';
export { AgentGymWebShopEnv } from './webshop-client.ts';

/** Prefix of remote env names: `agentgym:webshop@http://HOST:PORT`. */
export const AGENTGYM_PREFIX = 'agentgym:';

/** The parts of `agentgym:NAME@URL`. */
export interface AgentGymRef {
  name: AgentGymEnvName;
  url: string;
}

const USAGE = 'write agentgym:webshop@http://HOST:PORT or agentgym:alfworld@http://HOST:PORT';

/** Per env: the client class, the step limit AgentGym evaluates with, and a description. */
const CLIENTS: Record<
  AgentGymEnvName,
  { make: (o: AgentGymEnvOptions) => AgentGymEnv; maxSteps: number; description: string }
> = {
  webshop: {
    make: (o) => new AgentGymWebShopEnv(o),
    maxSteps: 15,
    description: "real WebShop on an AgentGym server (agentenv-webshop); WebShop's 15 steps",
  },
  alfworld: {
    make: (o) => new AgentGymAlfWorldEnv(o),
    maxSteps: 50,
    description: "real ALFWorld on an AgentGym server (agentenv-alfworld); AgentGym's 50 steps",
  },
};

/** True for names of the form `agentgym:…`. */
export function isAgentGymRef(name: string): boolean {
  return name.startsWith(AGENTGYM_PREFIX);
}

/** Parses `agentgym:NAME@URL`; a wrong name or URL says what to write instead. */
export function parseAgentGymRef(ref: string): AgentGymRef {
  const match = /^agentgym:([^@]*)@(.*)$/.exec(ref);
  if (!match) throw new ConfigError(`"${ref}" names no AgentGym server; ${USAGE}.`);
  const [, name = '', url = ''] = match;
  if (!(AGENTGYM_ENVS as readonly string[]).includes(name)) {
    throw new ConfigError(
      `unknown AgentGym env "${name}" in "${ref}"; supported: ${AGENTGYM_ENVS.join(', ')}.`,
    );
  }
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) {
    throw new ConfigError(`"${url}" in "${ref}" is not an http(s) URL; ${USAGE}.`);
  }
  return { name: name as AgentGymEnvName, url };
}

/**
 * The registry entry of `agentgym:NAME@URL`: envs inside AgentGym's step limit (or
 * `options.maxSteps`), drawing `reset({ seed })` tasks from `options.split`, and the server's
 * task splits. Nothing contacts the server before the first `reset`.
 */
export function agentgymEntry(ref: string): EnvEntry {
  const { name, url } = parseAgentGymRef(ref);
  const client = CLIENTS[name];
  return {
    description: `${client.description}, at ${url}`,
    remote: true,
    maxSteps: client.maxSteps,
    make: (o: EnvOptions) =>
      new TimeLimit(
        client.make({ url, ...(o.split !== undefined && { split: o.split }) }),
        o.maxSteps ?? client.maxSteps,
      ),
    tasks: () => new AgentGymTaskSource(name),
  };
}
