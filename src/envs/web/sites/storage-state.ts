import { readFileSync } from 'node:fs';
import type { BrowserContext } from 'playwright-core';
import { z } from 'zod';
import { ConfigError } from '../../../core/errors.ts';

/** A Playwright storage state (cookies and local storage per origin), as `storageState()` saves it. */
export type StorageState = Exclude<Parameters<BrowserContext['setStorageState']>[0], string>;

const CookieSchema = z.object({
  name: z.string(),
  value: z.string(),
  domain: z.string(),
  path: z.string().default('/'),
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.enum(['Strict', 'Lax', 'None']).default('Lax'),
});

const StorageStateSchema = z.object({
  cookies: z.array(CookieSchema).default([]),
  origins: z
    .array(
      z.object({
        origin: z.string(),
        localStorage: z.array(z.object({ name: z.string(), value: z.string() })).default([]),
      }),
    )
    .default([]),
});

const HOW =
  "write it with Playwright's context.storageState({ path }) (WebArena's auto_login.py does) or remove storage_state from the config";

/**
 * Reads a Playwright storage-state JSON file (WebArena's `.auth/*_state.json`), filling cookie
 * fields Playwright needs but hand-written files may omit. Errors name the file and the field.
 */
export function readStorageState(file: string): StorageState {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`storage state ${file}: ${(error as Error).message}; ${HOW}.`);
  }
  const result = StorageStateSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(
      `storage state ${file}: field ${issue?.path.map(String).join('.') || '(the file)'}: ${issue?.message}; ${HOW}.`,
    );
  }
  return result.data;
}
