import { ConfigError } from '../../core/errors.ts';
import { clientSettings } from '../client-settings.ts';
import type { EnvEntry, EnvOptions } from '../env.ts';
import { ObservationLimit } from '../wrappers/observation-limit.ts';
import { TimeLimit } from '../wrappers/time-limit.ts';
import type { AgentGymEnv, AgentGymEnvOptions } from './agentgym-env.ts';
import { AgentGymAlfWorldEnv } from './alfworld-client.ts';
import { dialectOf, GENERIC_DIALECT } from './dialects.ts';
import { AgentGymGenericEnv } from './generic-client.ts';
import { AGENTGYM_ENVS, AgentGymTaskSource, agentgymFamily, isAgentGymEnvName } from './tasks.ts';
import { AgentGymWebShopEnv } from './webshop-client.ts';

export { AgentGymEnv, type AgentGymEnvOptions } from './agentgym-env.ts';
export { AgentGymAlfWorldEnv } from './alfworld-client.ts';
export {
  AGENTGYM_DIALECTS,
  type AgentGymDialect,
  GENERIC_DIALECT,
} from './dialects.ts';
export { AgentGymHttpError, AgentGymProtocolError, AgentGymServerError } from './errors.ts';
export { AgentGymGenericEnv, type AgentGymGenericEnvOptions } from './generic-client.ts';
export type { HttpOptions } from './http.ts';
export {
  AGENTGYM_ENVS,
  AGENTGYM_SPLITS,
  AgentGymTaskSource,
  agentgymTask,
  GENERIC_SPLITS,
} from './tasks.ts';
export { AgentGymWebShopEnv } from './webshop-client.ts';

/** Prefix of remote env names: `agentgym:webshop@http://HOST:PORT`. */
export const AGENTGYM_PREFIX = 'agentgym:';

/** Marks a server run with the generic protocol: `agentgym:generic:NAME@URL`. */
const GENERIC = 'generic:';

/** The parts of `agentgym:NAME@URL` or `agentgym:generic:NAME@URL`. */
export interface AgentGymRef {
  /** The env's name: a server of {@link AGENTGYM_ENVS}, or a generic server's own name. */
  name: string;
  url: string;
  /** Spoken to with AgentGym's common protocol ({@link GENERIC_DIALECT}). */
  generic: boolean;
  /** Time to wait for one answer, when the ref sets it (`#timeout=SECONDS`). */
  timeoutMs?: number;
}

const USAGE = `write agentgym:NAME@http://HOST:PORT with NAME one of ${AGENTGYM_ENVS.join(', ')}, or agentgym:generic:NAME@http://HOST:PORT for another server`;

/** What the common protocol is, for the errors that point at it. */
const COMMON_PROTOCOL =
  'POST /create, /reset {id, data_idx}, /step {id, action}, /close {id}; GET /observation?id=, and /available_actions?id= if it lists actions';

/** How `agentgymEntry` makes one server's envs. */
interface Client {
  make: (o: AgentGymEnvOptions) => AgentGymEnv;
  maxSteps: number;
  description: string;
}

/** WebShop and ALFWorld have clients of their own; every other server is table-driven. */
const OWN_CLIENTS: Record<'webshop' | 'alfworld', Client> = {
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

function clientOf({ name, generic }: AgentGymRef): Client {
  if (name === 'webshop' || name === 'alfworld') return OWN_CLIENTS[name];
  const dialect = generic ? GENERIC_DIALECT : dialectOf(name);
  return {
    make: (o) => new AgentGymGenericEnv(name, { ...o, dialect }),
    maxSteps: dialect.maxSteps,
    description: generic
      ? `${name}, ${dialect.description}`
      : `${dialect.description}; ${dialect.maxSteps} steps`,
  };
}

/** True for names of the form `agentgym:…`. */
export function isAgentGymRef(name: string): boolean {
  return name.startsWith(AGENTGYM_PREFIX);
}

/**
 * Parses `agentgym:NAME@URL` (`#timeout=SECONDS` after the URL: see `clientSettings`); a wrong
 * name or URL says what to write instead.
 */
export function parseAgentGymRef(ref: string): AgentGymRef {
  const match = /^agentgym:([^@]*)@(.*)$/.exec(ref);
  if (!match) throw new ConfigError(`"${ref}" names no AgentGym server; ${USAGE}.`);
  const [, spec = '', written = ''] = match;
  const { url, timeoutMs } = clientSettings(written, ref);
  const generic = spec.startsWith(GENERIC);
  const name = generic ? spec.slice(GENERIC.length) : spec;
  if (generic) checkGenericName(name, ref, url);
  else if (name === 'generic') {
    throw new ConfigError(
      `"${ref}" names no env: write agentgym:generic:NAME@${url}, NAME being the env's own name (its family becomes agentgym:NAME).`,
    );
  } else if (!isAgentGymEnvName(name)) {
    throw new ConfigError(
      `unknown AgentGym env "${name}" in "${ref}"; known: ${AGENTGYM_ENVS.join(', ')}. A server that speaks AgentGym's common protocol (${COMMON_PROTOCOL}) runs as agentgym:generic:${name || 'NAME'}@${url}.`,
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
  return { name, url, generic, ...(timeoutMs !== undefined && { timeoutMs }) };
}

function checkGenericName(name: string, ref: string, url: string): void {
  if (isAgentGymEnvName(name)) {
    throw new ConfigError(
      `"${name}" in "${ref}" is a known AgentGym server: write agentgym:${name}@${url} to speak its own protocol.`,
    );
  }
  if (!/^[a-z][a-z0-9_-]*$/.test(name)) {
    throw new ConfigError(
      `"${name}" in "${ref}" is not an env name: use lowercase letters, digits, "-" and "_", starting with a letter (the env family becomes agentgym:NAME).`,
    );
  }
}

/**
 * The registry entry of `agentgym:NAME@URL` (or `agentgym:generic:NAME@URL`): envs of family
 * `agentgym:NAME` inside AgentGym's step limit for that env (or `options.maxSteps`) and the
 * observation limit (`options.maxObservationChars`, default 20,000 characters), drawing
 * `reset({ seed })` tasks from `options.split`, and the server's task splits. Nothing contacts
 * the server before the first `reset`.
 */
export function agentgymEntry(ref: string): EnvEntry {
  const parsed = parseAgentGymRef(ref);
  const { name, url, timeoutMs } = parsed;
  const client = clientOf(parsed);
  return {
    name: agentgymFamily(name),
    description: `${client.description}, at ${url}`,
    remote: true,
    maxSteps: client.maxSteps,
    make: (o: EnvOptions) =>
      new TimeLimit(
        new ObservationLimit(
          client.make({
            url,
            ...(o.split !== undefined && { split: o.split }),
            ...(timeoutMs !== undefined && { http: { timeoutMs } }),
          }),
          o.maxObservationChars,
        ),
        o.maxSteps ?? client.maxSteps,
      ),
    tasks: () => new AgentGymTaskSource(name),
  };
}
