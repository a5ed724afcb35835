import type { Provenance, StepInfo, Trajectory } from '../../core/types.ts';
import type { EpisodeSummary } from '../episode-source.ts';

/** A step as tests write it: the action and the page after it; the rest defaults to an ongoing step. */
export interface StepSketch {
  action: string;
  text: string;
  reward?: number;
  terminated?: boolean;
  truncated?: boolean;
  reasoning?: string;
  info?: StepInfo;
}

/** A hand-made trajectory with exactly the given steps, for viewer tests. */
export function sketchTrajectory(
  id: string,
  {
    provenance = 'real-offline',
    taskId = 'shop/1',
    instruction = 'buy a red mug',
    policyId = 'expert',
    initial = 'WebShop\n[Search]',
    steps,
  }: {
    provenance?: Provenance;
    taskId?: string;
    instruction?: string;
    policyId?: string;
    initial?: string;
    steps: StepSketch[];
  },
): Trajectory {
  return {
    id,
    env: 'webshop',
    task: { id: taskId, env: 'webshop', instruction, origin: 'seed' },
    initial: { text: initial, instruction },
    steps: steps.map((s) => ({
      action: s.action,
      observation: { text: s.text, instruction },
      reward: s.reward ?? 0,
      terminated: s.terminated ?? false,
      truncated: s.truncated ?? false,
      ...(s.reasoning !== undefined && { reasoning: s.reasoning }),
      ...(s.info !== undefined && { info: s.info }),
    })),
    provenance,
    policyId,
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:00:01.000Z',
  };
}

/** An episode summary with defaults, for index tests. */
export function sketchSummary(rowid: number, fields: Partial<EpisodeSummary> = {}): EpisodeSummary {
  return {
    rowid,
    id: `e${rowid}`,
    env: 'webshop',
    taskId: `task/${rowid % 3}`,
    instruction: `instruction ${rowid % 3}`,
    provenance: 'real-offline',
    policyId: 'expert',
    startedAt: '2026-01-01T00:00:00.000Z',
    steps: 3,
    finalReward: 0,
    success: false,
    end: 'terminated',
    ...fields,
  };
}
