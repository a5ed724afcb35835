/**
 * ALFWorld's command language, parsed from typed text. Parsing is forgiving about case and spacing
 * only; whether a command can be carried out is the world's business (`world.ts`).
 */

import type { Treatment } from './vocabulary.ts';

export type Command =
  | { verb: 'go to'; receptacle: string }
  | { verb: 'open' | 'close'; receptacle: string }
  | { verb: 'take'; object: string; receptacle: string }
  /** `legacy`: typed as `put X in/on Y`, the form of ALFWorld's first release. */
  | { verb: 'move'; object: string; receptacle: string; legacy: boolean }
  | { verb: Treatment; object: string; receptacle: string }
  | { verb: 'slice'; object: string; blade: string }
  | { verb: 'use' | 'examine'; target: string }
  | { verb: 'inventory' | 'look' };

/** The commands a player can type, for error messages and help. */
export const COMMAND_FORMS =
  'go to X, open X, close X, take X from Y, move X to Y, heat X with Y, cool X with Y, clean X with Y, slice X with Y, use X, examine X, inventory, look';

const PATTERNS: ReadonlyArray<[RegExp, (m: string[]) => Command]> = [
  [/^go to (.+)$/, ([, r]) => ({ verb: 'go to', receptacle: r as string })],
  [/^(open|close) (.+)$/, ([, v, r]) => ({ verb: v as 'open', receptacle: r as string })],
  [
    /^take (.+) from (.+)$/,
    ([, o, r]) => ({ verb: 'take', object: o as string, receptacle: r as string }),
  ],
  [
    /^move (.+) to (.+)$/,
    ([, o, r]) => ({ verb: 'move', object: o as string, receptacle: r as string, legacy: false }),
  ],
  [
    /^put (.+?) (?:in\/on|in|on|into) (.+)$/,
    ([, o, r]) => ({ verb: 'move', object: o as string, receptacle: r as string, legacy: true }),
  ],
  [
    /^(heat|cool|clean) (.+) with (.+)$/,
    ([, v, o, r]) => ({ verb: v as Treatment, object: o as string, receptacle: r as string }),
  ],
  [
    /^slice (.+) with (.+)$/,
    ([, o, k]) => ({ verb: 'slice', object: o as string, blade: k as string }),
  ],
  [/^(use|examine) (.+)$/, ([, v, t]) => ({ verb: v as 'use', target: t as string })],
  [/^(inventory|look)$/, ([, v]) => ({ verb: v as 'look' })],
];

/** The command `text` names, or undefined when it is not one of ALFWorld's command forms. */
export function parseCommand(text: string): Command | undefined {
  const normalized = text.trim().toLowerCase().replace(/\s+/g, ' ');
  for (const [pattern, build] of PATTERNS) {
    const match = pattern.exec(normalized);
    if (match) return build(match);
  }
  return undefined;
}
