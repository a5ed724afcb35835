import { ConfigError } from '../core/errors.ts';
import type { Trajectory } from '../core/types.ts';
import type { EnvEntry, EnvOptions } from '../envs/env.ts';
import { envEntry } from '../envs/registry.ts';
import { TimeLimit } from '../envs/wrappers/time-limit.ts';
import type { LlmClient } from '../llm/client.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { WriteBehind } from '../replay/write-behind.ts';
import { LlmExperienceModel } from './llm/llm-model.ts';
import { type ExperienceChoice, llmFreeModel } from './llm-free.ts';
import { SyntheticEnv } from './synthetic-env.ts';

/** Transitions above which a served synthetic env's buffer answers from the ANN index. */
const SERVED_ANN_THRESHOLD = 1_000;

/** True for `synthetic:FAMILY` env names. */
export function isSyntheticRef(name: string): boolean {
  return name.startsWith('synthetic:');
}

/** A `synthetic:FAMILY` entry: its envs share one open buffer, which `close()` closes. */
export interface SyntheticEntry extends EnvEntry {
  /**
   * Stores a finished episode in the buffer as `synthetic`, in the background (see
   * {@link WriteBehind}): resolves at once while few episodes wait to be written, else once the
   * buffer has caught up (back-pressure); with `durable`, once this one is committed.
   */
  writeBack(trajectory: Trajectory): Promise<void>;
  /** Episodes handed to `writeBack` and not yet written, and the `writeBack` calls waiting. */
  writeBackQueue(): { pending: number; waiting: number };
  /**
   * Transitions of the family in the buffer, by provenance (rejects while a bulk add holds a
   * SQLite buffer: see `SqliteReplayBuffer.stats`).
   */
  transitions(): Promise<Record<string, number>>;
  /** Writes the episodes still waiting, then closes the buffer. */
  close(): Promise<void>;
}

/** What a `synthetic:FAMILY` entry runs on besides its buffer. */
export interface SyntheticEntryOptions extends EnvOptions {
  /**
   * The replay buffer: a SQLite file or a postgres:// URL (must exist and hold real data of the
   * family).
   */
  db?: string;
  /**
   * The reasoning LLM experience model's client and prompt settings; without it the LLM-free
   * model learnt from the buffer.
   */
  llm?: { client: LlmClient; historyWindow?: number };
  /** Without `llm`: which LLM-free model (see `llmFreeModel`); default `auto`. */
  experience?: ExperienceChoice;
  /** Demonstrations retrieved per step. Default 4. */
  k?: number;
  /** Share of the demonstrations that are real, the rest synthetic. Default 1. */
  realShare?: number;
  /**
   * `writeBack` resolves only once its episode is committed to the buffer. Default false: up to
   * 500 episodes may be written behind (`DEFAULT_MAX_UNWRITTEN`), lost if the process dies.
   */
  durable?: boolean;
  warn?: (message: string) => void;
}

/**
 * The registry entry of `synthetic:FAMILY` (e.g. `synthetic:webshop`): SyntheticEnvs over the
 * existing replay buffer at `options.db` (never created here: a mistyped path fails and leaves
 * nothing behind) with the LLM experience model when given one, else the LLM-free model learnt
 * from it, the family's step limit and its public train/test task lists. Finished episodes handed to `writeBack` (a server's
 * `onEpisode`) go back to the buffer as `synthetic`, so experience served to remote trainers
 * lands where local experience does.
 */
export async function syntheticEntry(
  name: string,
  options: SyntheticEntryOptions,
): Promise<SyntheticEntry> {
  if (!options.db)
    throw new ConfigError(
      `${name} learns from a replay buffer: pass --db PATH (see dreamgym buffer import).`,
    );
  const ref = name.slice('synthetic:'.length);
  const real = envEntry(ref);
  // A server ref's data carries the family its entry names (`mcp@CONFIG` → `mcp:NAME`).
  const family = real.name ?? ref;
  // A served env retrieves through the ANN index from a small size on: exact search costs
  // ~0.3 µs per stored transition per step (1.2 ms at 4k, ~15 ms at 50k, the default threshold),
  // which 64 sessions queue behind; an HNSW search stays near 0.1 ms, and the index grows in place
  // as episodes are written back or imported by another process.
  const buffer = await ReplayBuffer.open({
    path: options.db,
    create: false,
    annThreshold: SERVED_ANN_THRESHOLD,
  });
  try {
    if (((await buffer.stats()).byEnv[family]?.['real-offline']?.transitions ?? 0) === 0) {
      throw new ConfigError(
        `${options.db} holds no real-offline ${family} transitions; import offline data first (dreamgym collect, then dreamgym buffer import).`,
      );
    }
  } catch (error) {
    void buffer.close();
    throw error;
  }
  const model = options.llm
    ? new LlmExperienceModel({
        llm: options.llm.client,
        ...(options.llm.historyWindow !== undefined && {
          historyWindow: options.llm.historyWindow,
        }),
      })
    : await llmFreeModel(family, buffer, { experience: options.experience ?? 'auto' });
  const tasks = real.tasks(options);
  const writer = new WriteBehind(buffer, {
    ...(options.durable && { maxUnwritten: 0 }),
    warn: options.warn ?? ((message) => console.error(message)),
  });
  return {
    maxSteps: real.maxSteps,
    description: `synthetic ${family}: the ${options.llm ? 'LLM' : 'LLM-free'} experience model ${model.id} over ${options.db}`,
    make: (o) =>
      new TimeLimit(
        new SyntheticEnv({
          env: family,
          model,
          buffer,
          tasks,
          ...(options.k !== undefined && { k: options.k }),
          ...(options.realShare !== undefined && { realShare: options.realShare }),
        }),
        o.maxSteps ?? real.maxSteps,
      ),
    tasks: () => tasks,
    writeBack: (trajectory) => writer.push(trajectory),
    writeBackQueue: () => ({ pending: writer.pending, waiting: writer.waiting }),
    transitions: async () =>
      Object.fromEntries(
        Object.entries((await buffer.stats()).byEnv[family] ?? {}).map(([p, s]) => [
          p,
          s.transitions,
        ]),
      ),
    close: async () => {
      await writer.close();
      await buffer.close();
    },
  };
}
