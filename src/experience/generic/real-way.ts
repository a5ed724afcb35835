import type { Task } from '../../core/types.ts';
import type { EpisodeView } from './episode.ts';
import type { RealStep, TemplateStats } from './knowledge.ts';
import { linesByKey } from './text.ts';

/** What {@link offTheRealWay} needs of what the model learnt. */
export interface WayKnowledge {
  isFrame(key: string): boolean;
  /** The real steps of this very task that took this very action. */
  inWorld(task: Task, action: string): readonly RealStep[];
  /** What the buffer showed about the action's template (undefined: nothing). */
  statsOf(action: string): TemplateStats | undefined;
}

/** Frame line keys a template's real steps must have shown, unchanged, to be taken as leaving the frame. */
const MIN_STEPS = 3;

/**
 * A page's frame: for each frame line key, its last line (a message of the same key, such as an
 * inventory's answer, comes before the frame's own line). Keys in order, one line each.
 */
export function frameOf(text: string, isFrame: (key: string) => boolean): string {
  const out: string[] = [];
  for (const [key, lines] of linesByKey(text)) {
    if (isFrame(key)) out.push(`${key}\u0000${lines.split('\n').at(-1)}`);
  }
  return out.sort().join('\n');
}

/**
 * True when the template's real steps never changed the frame (a look, an inventory): every
 * frame key they showed in both states, over at least {@link MIN_STEPS} steps, stayed as it was.
 */
function keepsFrame(stats: TemplateStats | undefined, isFrame: (key: string) => boolean): boolean {
  if (!stats) return false;
  let shown = false;
  for (const [key, count] of stats.lines) {
    if (!isFrame(key) || count.both < MIN_STEPS) continue;
    if (count.changed > 0) return false;
    shown = true;
  }
  return shown;
}

/**
 * The steps of an episode's way (each step before `now`) that are no real step of this task's
 * world, on pages with a frame (a place, its exits, what is there, what one holds): a step is
 * real when one of this task's real episodes took the same action from the same frame to the
 * same frame. A step the env refused, or one of a template that never changes the frame which
 * left it as it was, needs no witness. Each line names the step and its action.
 *
 * Every page of such a way can hold only lines this world showed and still not be a way it has:
 * a drop that left the thing in one's hands, a change made without what it needed. An ending at
 * its end rests on what no real episode showed, so the buffer vouches for no outcome there.
 */
export function offTheRealWay(
  task: Task,
  view: EpisodeView,
  now: number,
  knowledge: WayKnowledge,
): string[] {
  const isFrame = (key: string) => knowledge.isFrame(key);
  const out: string[] = [];
  for (let i = 0; i < now; i++) {
    const action = view.actions[i] as string;
    const before = frameOf(view.texts[i] as string, isFrame);
    const after = frameOf(view.texts[i + 1] as string, isFrame);
    if (before === after && (view.invalid[i] || keepsFrame(knowledge.statsOf(action), isFrame)))
      continue;
    const witnessed = knowledge.inWorld(task, action).some((step) => {
      const texts = step.episode.view.texts;
      return (
        frameOf(texts[step.t] as string, isFrame) === before &&
        frameOf(texts[step.t + 1] as string, isFrame) === after
      );
    });
    if (!witnessed) out.push(`step ${i + 1}, "${action}": no real episode of this task took it so`);
  }
  return out;
}
