import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FinishReason, TokenLogprob, TokenUsage } from './client.ts';

/** What the cache keeps of an answer: enough to rebuild the response without the backend. */
export interface CachedAnswer {
  text: string;
  finishReason: FinishReason;
  usage: TokenUsage;
  logprobs?: TokenLogprob[];
}

/** Stores answers by request key, for reproducible reruns and to skip paying twice. */
export interface ResponseCache {
  /** The cached answer for a request key, if any. */
  get(key: string): Promise<CachedAnswer | undefined>;
  /** Stores an answer under a request key. */
  set(key: string, answer: CachedAnswer): Promise<void>;
}

/**
 * One JSON file per answer under `dir/<first two hex digits>/<key>.json`. Files are written to a
 * temporary name and renamed into place, so a crash or a concurrent writer never leaves a torn
 * entry, and two runs can share a directory.
 */
export class FileResponseCache implements ResponseCache {
  constructor(readonly dir: string) {}

  async get(key: string): Promise<CachedAnswer | undefined> {
    try {
      return JSON.parse(await readFile(this.path(key), 'utf8')) as CachedAnswer;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async set(key: string, answer: CachedAnswer): Promise<void> {
    const path = this.path(key);
    await mkdir(join(this.dir, key.slice(0, 2)), { recursive: true });
    const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(temporary, JSON.stringify(answer));
    await rename(temporary, path);
  }

  private path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }
}

/** An in-process cache (a Map): deduplicates within one run; nothing survives it. */
export class MemoryResponseCache implements ResponseCache {
  private readonly answers = new Map<string, CachedAnswer>();

  async get(key: string): Promise<CachedAnswer | undefined> {
    return this.answers.get(key);
  }

  async set(key: string, answer: CachedAnswer): Promise<void> {
    this.answers.set(key, answer);
  }

  get size(): number {
    return this.answers.size;
  }
}

/** SHA-256 of a value's JSON with object keys sorted, so equal requests hash equal. */
export function hashRequest(value: unknown): string {
  return createHash('sha256').update(stableJson(value)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
