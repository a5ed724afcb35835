/** The rooms of synthetic episodes, composed from rooms the buffer's real episodes showed. */
import { typeOf } from '../../envs/formats/alfworld-grammar.ts';

/**
 * The room of a start widened by similar rooms in the buffer (mostly the same receptacle types):
 * receptacle types common among them (in at least a third) are added, and each type gets as many
 * instances as such rooms hold, so the room has what rooms of its kind tend to have.
 */
export function roomLike(base: readonly string[], rooms: readonly (readonly string[])[]): string[] {
  const types = new Set(base.map(typeOf));
  const similar = rooms.filter((room) => {
    const other = new Set(room.map(typeOf));
    const shared = [...other].filter((t) => types.has(t)).length;
    return shared / new Set([...types, ...other]).size >= 0.5;
  });
  const frequency = new Map<string, number>();
  for (const room of similar)
    for (const t of new Set(room.map(typeOf))) frequency.set(t, (frequency.get(t) ?? 0) + 1);
  const common = (t: string) => types.has(t) || (frequency.get(t) ?? 0) >= similar.length / 3;
  const out = new Set(base);
  for (const room of similar) for (const r of room) if (common(typeOf(r))) out.add(r);
  return [...out];
}
