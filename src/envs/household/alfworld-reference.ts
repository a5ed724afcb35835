/**
 * For tests only: reads ALFWorld's reference files from `../shared/reference/alfworld` next to the
 * repo, so tests can hold our phrasing against the real thing. The env never loads them; tests
 * that need them are skipped where they are missing.
 */

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const REFERENCE_DIR = join(import.meta.dirname, '../../../../shared/reference/alfworld');
export const HAS_REFERENCE = existsSync(join(REFERENCE_DIR, 'react_trajectories.json'));

/** The TextWorld grammar ALFWorld's text engine prints from. */
export function readGrammar(): string {
  return readFileSync(join(REFERENCE_DIR, 'alfred.twl2'), 'utf8');
}

export interface ReferenceTranscript {
  name: string;
  /** The first line: the room from its middle. */
  opening: string;
  /** The text after "Your task is to: ". */
  instruction: string;
  /** Each command with the feedback ALFWorld printed for it (ReAct's "think:" lines dropped). */
  turns: Array<{ command: string; feedback: string }>;
}

/** The 36 ReAct/Act transcripts of real ALFWorld episodes. */
export function readTranscripts(): ReferenceTranscript[] {
  const raw = JSON.parse(
    readFileSync(join(REFERENCE_DIR, 'react_trajectories.json'), 'utf8'),
  ) as Record<string, string>;
  return Object.entries(raw).map(([name, text]) => {
    const lines = text.split('\n').map((line) => line.trim());
    const turns: ReferenceTranscript['turns'] = [];
    let pending: string | undefined;
    for (const line of lines.slice(2)) {
      if (line.startsWith('>')) {
        const command = line.slice(1).trim();
        // In one transcript a thought comes between a command and its feedback.
        if (!command.startsWith('think:')) pending = command;
      } else if (line !== '' && line !== 'OK.' && pending !== undefined) {
        turns.push({ command: pending, feedback: line });
        pending = undefined;
      }
    }
    return {
      name,
      opening: lines[0] ?? '',
      instruction: (lines[1] ?? '').replace(/^Your task is to: /, ''),
      turns,
    };
  });
}
