/**
 * Offline variations of a web task, without an LLM: the parent's WebArena intent template filled
 * with other entities (a post, a user, a product, an order, a month) that the replay buffer's real
 * episodes named in their tasks and showed on their pages.
 *
 * What it reads: the buffer's real trajectories only — their tasks' intent templates and slot
 * values (`intent_template`, `instantiation_dict`; never the evaluator's reference answers) and
 * their pages — and the parent's template. Never the site, its database or its code: a variation
 * is a task the synthetic env can play because the buffer showed its pages. It keeps a variation
 * only where the web experience model can judge it:
 * - every new entity stands on a real page, one of them in a page's title or heading (its own
 *   page, so the synthetic env can show it), and all the task's entities stand together on one
 *   page (the review by that user of that product exists);
 * - the model's reward model has successful real episodes of the variation's template
 *   ({@link WebRewardModel.templateEvidence}), so a `stop` is judged by what success looked like
 *   and not by its fitted features alone.
 * Variations have no spec: the real env cannot build them (their reference answers would have to
 * come from the site), so they train in the synthetic env only.
 */
import type { Task, Trajectory } from '../../core/types.ts';
import { parseTree } from '../../envs/formats/web-tree.ts';
import { WebKnowledge } from '../../experience/web/knowledge.ts';
import type { WebRewardModel } from '../../experience/web/reward.ts';
import { generatedTask } from '../task-identity.ts';
import type { GenerationResult, TaskGenerator } from './generator.ts';
import { type Candidate, takeVaried } from './take-varied.ts';

/** A seed task's WebArena template and the values it was filled with. */
export interface TemplateFill {
  template: string;
  slots: Record<string, string>;
}

/** One page a real episode showed: its text, lower-cased, and its title and heading lines. */
interface ShownPage {
  text: string;
  titles: string[];
}

/**
 * The template and slot values of a task's WebArena config, when it has both and they fill to the
 * task's instruction; undefined otherwise (a generated task, a config written without them).
 */
export function templateFill(task: Task): TemplateFill | undefined {
  const spec = task.spec as { intent_template?: unknown; instantiation_dict?: unknown } | undefined;
  const template = spec?.intent_template;
  const dict = spec?.instantiation_dict;
  if (typeof template !== 'string' || typeof dict !== 'object' || dict === null) return undefined;
  const slots: Record<string, string> = {};
  for (const [name, value] of Object.entries(dict)) {
    if (typeof value === 'string' || typeof value === 'number') slots[name] = String(value);
  }
  return fill(template, slots) === task.instruction ? { template, slots } : undefined;
}

/** The template with each `{{slot}}` (WebArena's) or `{slot}` replaced by its value. */
export function fill(template: string, slots: Readonly<Record<string, string>>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}|\{(\w+)\}/g, (whole, a?: string, b?: string) => {
    const value = slots[(a ?? b) as string];
    return value ?? whole;
  });
}

/**
 * Web task variations learnt from the buffer's real episodes (see the module doc). Build it with
 * {@link WebTaskVariations.fromTrajectories} over the real trajectories of one web env.
 */
export class WebTaskVariations implements TaskGenerator {
  readonly name = 'web-variations';
  /** Per value: the pages showing it, and whether one shows it in its title or a heading. */
  private readonly shown = new Map<string, { pages: Set<number>; titled: boolean }>();
  /** The template fills of the variations it made (they have no spec), so they vary in turn. */
  private readonly made = new Map<string, TemplateFill>();

  private constructor(
    /** The buffer's tasks' slot values, in the order first seen. */
    private readonly fills: ReadonlyArray<Readonly<Record<string, string>>>,
    private readonly pages: readonly ShownPage[],
    private readonly rewards: WebRewardModel,
    /** Successful real episodes of alike instructions a variation's template needs. */
    private readonly minTemplateEvidence: number,
  ) {}

  /** What the real trajectories (other provenances are ignored) show of tasks and pages. */
  static fromTrajectories(
    trajectories: Iterable<Trajectory>,
    { minTemplateEvidence = 1 }: { minTemplateEvidence?: number } = {},
  ): WebTaskVariations {
    const real = [...trajectories].filter((t) => t.provenance !== 'synthetic');
    const fills = new Map<string, Record<string, string>>();
    for (const { task } of real) {
      const slots = templateFill(task)?.slots;
      if (slots) fills.set(JSON.stringify(slots), slots);
    }
    const pages = new Map<string, ShownPage>();
    for (const t of real) {
      for (const observation of [t.initial, ...t.steps.map((s) => s.observation)]) {
        if (pages.has(observation.text)) continue;
        const tree = parseTree(observation.text);
        if (!tree) continue;
        const titles = [
          ...tree.tabs.map((tab) => tab.title),
          ...tree.nodes.filter((n) => n.role === 'heading').map((n) => n.name ?? ''),
        ];
        pages.set(observation.text, {
          text: tree.nodes.map((n) => n.name ?? '').join('\n'),
          titles,
        });
      }
    }
    return new WebTaskVariations(
      [...fills.values()],
      [...pages.values()],
      WebKnowledge.fromTrajectories(real).rewards(),
      Math.max(1, minTemplateEvidence),
    );
  }

  async generate({
    parent,
    count,
    pool,
    rng,
  }: Parameters<TaskGenerator['generate']>[0]): Promise<GenerationResult> {
    const parentFill = templateFill(parent) ?? this.made.get(parent.id);
    if (!parentFill) {
      return {
        tasks: [],
        warnings: [
          `web-variations: ${parent.id} has no WebArena intent_template and instantiation_dict that fill to its instruction, and is no variation this generator made; only such tasks can be varied.`,
        ],
      };
    }
    const { template, slots } = parentFill;
    // Slots naming something a page showed; the rest (a new price, a comment to write) stay.
    const entities = Object.keys(slots).filter(
      (name) => this.where(slots[name] as string).pages.size > 0,
    );
    // Each buffer task's values of the parent's entity slots, one slot at a time and (where
    // it shares several) all at once: a user and a product that belong together.
    const changes = new Map<string, { kind: string; varied: Record<string, string> }>();
    for (const donor of this.fills) {
      const shared = entities.filter((name) => donor[name] !== undefined);
      const subsets = shared.length > 1 ? [...shared.map((n) => [n]), shared] : [shared];
      for (const names of subsets) {
        const varied = { ...slots };
        for (const name of names) varied[name] = donor[name] as string;
        const changed = names.filter((name) => varied[name] !== slots[name]);
        if (changed.length === 0) continue;
        changes.set(JSON.stringify(varied), { kind: changed.join('+'), varied });
      }
    }
    const candidates: Candidate<Record<string, string>>[] = [];
    for (const { kind, varied } of changes.values()) {
      const changed = kind.split('+');
      if (this.judgeable(fill(template, varied), entities, varied, changed))
        candidates.push({ kind, change: varied });
    }
    const build = (varied: Record<string, string>): Task => {
      const task = generatedTask(parent, fill(template, varied));
      this.made.set(task.id, { template, slots: varied });
      return task;
    };
    return { tasks: takeVaried(candidates, count, build, pool, rng), warnings: [] };
  }

  /**
   * Whether the experience model can play and judge the task: its changed entities on real pages,
   * one in a title or heading, all its entities on one page, and template evidence for `stop`.
   */
  private judgeable(
    instruction: string,
    entities: readonly string[],
    slots: Readonly<Record<string, string>>,
    changed: readonly string[],
  ): boolean {
    const [first, ...rest] = entities.map((name) => this.where(slots[name] as string).pages);
    const together = [...(first ?? [])].some((page) => rest.every((pages) => pages.has(page)));
    return (
      changed.some((name) => this.where(slots[name] as string).titled) &&
      together &&
      this.rewards.templateEvidence(instruction) >= this.minTemplateEvidence
    );
  }

  /** Which pages show `value`, and whether a title or heading does (computed once a value). */
  private where(value: string): { pages: Set<number>; titled: boolean } {
    let found = this.shown.get(value);
    if (!found) {
      const pattern = phrase(value);
      const pages = new Set<number>();
      let titled = false;
      this.pages.forEach((page, i) => {
        if (!pattern?.test(page.text)) return;
        pages.add(i);
        titled ||= page.titles.some((t) => pattern.test(t));
      });
      found = { pages, titled };
      this.shown.set(value, found);
    }
    return found;
  }
}

/** A pattern matching `value` as a whole phrase, whatever the case; undefined for a blank. */
function phrase(value: string): RegExp | undefined {
  const escaped = value.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (escaped.length === 0) return undefined;
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'iu');
}
