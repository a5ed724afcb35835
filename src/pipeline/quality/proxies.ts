/**
 * The LLM-free quality proxies of synthetic experience (definitions in docs/quality.md). Each
 * works on episode groups (G episodes of one task) and returns a per-group value, so intervals are
 * over tasks, the independent unit.
 */
import { finalReward, type Step, type Trajectory } from '../../core/types.ts';
import type { QualityLens } from '../../envs/quality-lens.ts';
import { type Estimate, meanInterval } from '../../report/stats.ts';

/** One proxy over the task groups: the mean of the groups' values with a 95% interval. */
export interface ProxyValue extends Estimate {
  /** How many units the value counts in all (revisits checked, entities seen, steps, …). */
  units: number;
}

/** The four proxies, each as defined in docs/quality.md. */
export interface QualityProxies {
  /** Share of revisit checks (a fact shown again, unchanged since) whose value is the same. */
  consistency: ProxyValue;
  /** Distinct next-state texts over steps within a task group. */
  distinctStates: ProxyValue;
  /** Distinct episodes (sequences of next-state text and reward) over episodes within a task group. */
  distinctTrajectories: ProxyValue;
  /** Distinct next-state texts over steps across all groups (one number; no interval). */
  distinctStatesAcrossTasks: number;
  /** Population variance of the final rewards within a task group. */
  rewardVariance: ProxyValue;
  /** Share of task groups whose rewards are not all equal (a GRPO group with a signal). */
  informativeGroups: ProxyValue;
  /** Share of the distinct entities an episode shows that neither the buffer nor the episode's earlier observations showed. */
  hallucination: ProxyValue;
}

const counted = (steps: readonly Step[]) => steps.filter((s) => !s.info?.invalidAction);

/** Consistency checks of one episode: how many facts were shown again unchanged, and how many agreed. */
export function consistencyChecks(
  trajectory: Trajectory,
  lens: QualityLens,
): { checks: number; consistent: number } {
  const known = new Map<string, string>();
  let checks = 0;
  let consistent = 0;
  for (const { invalidates, facts } of lens.facts(trajectory)) {
    for (const key of invalidates) known.delete(key);
    for (const [key, value] of facts) {
      const before = known.get(key);
      if (before !== undefined) {
        checks++;
        if (before === value) consistent++;
      }
      known.set(key, value);
    }
  }
  return { checks, consistent };
}

/**
 * The distinct entities an episode shows, in order of first appearance, and those of them that
 * neither `vocabulary` (the buffer's real observations) nor an earlier observation of the episode
 * contains. An entity first shown at step t is checked against the buffer only: the episode's
 * earlier observations did not have it, or it would not be new.
 */
export function hallucinatedEntities(
  trajectory: Trajectory,
  lens: QualityLens,
  vocabulary: ReadonlySet<string>,
): { entities: string[]; hallucinated: string[] } {
  const seen = new Set<string>();
  const hallucinated: string[] = [];
  const observations = [trajectory.initial, ...counted(trajectory.steps).map((s) => s.observation)];
  for (const observation of observations) {
    for (const entity of lens.entities(observation.text)) {
      if (seen.has(entity)) continue;
      seen.add(entity);
      if (!vocabulary.has(entity)) hallucinated.push(entity);
    }
  }
  return { entities: [...seen], hallucinated };
}

/** Every entity the lens finds in the observations of `trajectories` (the buffer's vocabulary). */
export function entityVocabulary(
  trajectories: readonly Trajectory[],
  lens: QualityLens,
): Set<string> {
  const out = new Set<string>();
  for (const t of trajectories)
    for (const o of [t.initial, ...t.steps.map((s) => s.observation)])
      for (const e of lens.entities(o.text)) out.add(e);
  return out;
}

/** Groups episodes by task id, in first-seen order. */
export function groupByTask(trajectories: readonly Trajectory[]): Trajectory[][] {
  const groups = new Map<string, Trajectory[]>();
  for (const t of trajectories) {
    const group = groups.get(t.task.id) ?? [];
    group.push(t);
    groups.set(t.task.id, group);
  }
  return [...groups.values()];
}

/** All proxies over episode groups; `vocabulary` is {@link entityVocabulary} of the buffer. */
export function qualityProxies(
  groups: readonly (readonly Trajectory[])[],
  lens: QualityLens,
  vocabulary: ReadonlySet<string>,
): QualityProxies {
  const consistency: number[] = [];
  const distinctStates: number[] = [];
  const distinctTrajectories: number[] = [];
  const variance: number[] = [];
  const hallucination: number[] = [];
  const units = { checks: 0, steps: 0, episodes: 0, entities: 0 };
  const everyState = new Set<string>();
  for (const group of groups) {
    let checks = 0;
    let consistent = 0;
    let entities = 0;
    let invented = 0;
    const states = new Set<string>();
    const episodes = new Set<string>();
    let steps = 0;
    for (const trajectory of group) {
      const c = consistencyChecks(trajectory, lens);
      checks += c.checks;
      consistent += c.consistent;
      const h = hallucinatedEntities(trajectory, lens, vocabulary);
      entities += h.entities.length;
      invented += h.hallucinated.length;
      const valid = counted(trajectory.steps);
      for (const step of valid) {
        states.add(step.observation.text);
        everyState.add(step.observation.text);
      }
      steps += valid.length;
      episodes.add(JSON.stringify(trajectory.steps.map((s) => [s.observation.text, s.reward])));
    }
    units.checks += checks;
    units.steps += steps;
    units.episodes += group.length;
    units.entities += entities;
    if (checks > 0) consistency.push(consistent / checks);
    if (steps > 0) distinctStates.push(states.size / steps);
    distinctTrajectories.push(episodes.size / group.length);
    variance.push(populationVariance(group.map(finalReward)));
    if (entities > 0) hallucination.push(invented / entities);
  }
  const value = (xs: number[], n: number): ProxyValue => ({
    ...bounded(meanInterval(xs)),
    units: n,
  });
  return {
    consistency: value(consistency, units.checks),
    distinctStates: value(distinctStates, units.steps),
    distinctTrajectories: value(distinctTrajectories, units.episodes),
    distinctStatesAcrossTasks: units.steps === 0 ? 0 : everyState.size / units.steps,
    rewardVariance: value(variance, units.episodes),
    informativeGroups: value(
      variance.map((v) => (v > 1e-12 ? 1 : 0)),
      groups.length,
    ),
    hallucination: value(hallucination, units.entities),
  };
}

/** V = mean of (r_i − r̄)², the curriculum's reward variance. */
export function populationVariance(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  return xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
}

/** Rates and variances cannot leave [0, 1]: the normal interval is clipped there. */
function bounded(e: Estimate): Estimate {
  return { ...e, low: Math.max(0, e.low), high: Math.min(1, e.high) };
}
