import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Trajectory, transitions } from '../../core/types.ts';
import { MockLlm } from '../../llm/mock-llm.ts';
import { SqliteReplayBuffer } from '../../replay/sqlite-buffer.ts';
import { relabel, webshopTrajectories } from '../../replay/testing/fixtures.ts';
import { SyntheticEnv } from '../synthetic-env.ts';
import { toAnswer } from './answer.ts';
import { LlmExperienceModel } from './llm-model.ts';
import { REAL } from './real-steps.ts';
import { exportSft, type SftExample, UNANNOTATED_REASONING } from './sft-export.ts';

let offline: Trajectory[];
let buffer: SqliteReplayBuffer;
const dir = mkdtempSync(join(tmpdir(), 'dreamgym-sft-'));

/** Annotates every transition of `trajectory` with a recognisable reasoning. */
async function annotate(trajectory: Trajectory): Promise<void> {
  for (const t of await buffer.trajectoryTransitions(trajectory.id))
    await buffer.setTeacherReasoning(t.id, `why ${trajectory.id} step ${t.t}`);
}

function readExamples(path: string): SftExample[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SftExample);
}

beforeAll(async () => {
  offline = await webshopTrajectories(30, 1);
  buffer = SqliteReplayBuffer.open();
  await buffer.add(offline);
  // Synthetic experience is never training data for the experience model.
  await buffer.add(relabel(offline.slice(0, 3), 'synthetic', 'dream'));
  for (const trajectory of offline.slice(0, 10)) await annotate(trajectory);
});

describe('exportSft', () => {
  it('writes one example per annotated real transition, the real outcome as the answer', async () => {
    const out = join(dir, 'annotated.jsonl');
    const result = await exportSft({ buffer, out });
    const annotated = offline.slice(0, 10).flatMap(transitions);
    const all = offline.flatMap(transitions);
    expect(result).toEqual({
      written: annotated.length,
      unannotatedWritten: 0,
      unannotatedSkipped: all.length - annotated.length,
    });
    const examples = readExamples(out);
    expect(examples).toHaveLength(annotated.length);
    const first = offline[0] as Trajectory;
    const [step0] = transitions(first);
    expect(examples[0]?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(JSON.parse(examples[0]?.messages[2]?.content ?? '')).toEqual({
      reasoning: `why ${first.id} step 0`,
      next_state: { text: step0?.nextState.text, actions: step0?.nextState.actions },
      reward: step0?.reward,
      terminated: step0?.terminated,
    });
  });

  it('exports unannotated transitions with a placeholder only when allowed', async () => {
    const out = join(dir, 'all.jsonl');
    const result = await exportSft({ buffer, out, allowUnannotated: true, env: 'webshop', k: 2 });
    const all = offline.flatMap(transitions);
    expect(result.written).toBe(all.length);
    expect(result.unannotatedWritten).toBe(
      all.length - offline.slice(0, 10).flatMap(transitions).length,
    );
    const last = readExamples(out).at(-1);
    const reasoning = (JSON.parse(last?.messages[2]?.content ?? '') as { reasoning: string })
      .reasoning;
    expect(reasoning).toBe(UNANNOTATED_REASONING);
    expect(last?.messages[1]?.content.match(/### Demonstration \d/g)).toHaveLength(2);
  });

  it("gives the model's own prompt for each step: a SyntheticEnv replaying the episode sends the same", async () => {
    const out = join(dir, 'replay.jsonl');
    await exportSft({ buffer, out, k: 4, historyWindow: 2 });
    const trajectory = offline
      .slice(0, 10)
      .reduce((a, b) => (b.steps.length > a.steps.length ? b : a));
    const steps = transitions(trajectory);
    expect(steps.length).toBeGreaterThan(3);
    const exported = readExamples(out).filter((e) =>
      (JSON.parse(e.messages[2]?.content ?? '') as { reasoning: string }).reasoning.startsWith(
        `why ${trajectory.id} `,
      ),
    );
    expect(exported).toHaveLength(steps.length);

    // The teacher-forced model: answers each step with the real outcome, so the history matches.
    const llm = new MockLlm({
      answers: steps.map((s, i) => toAnswer(`step ${i}`, s.nextState, s.reward, s.terminated)),
    });
    const env = new SyntheticEnv({
      env: 'webshop',
      model: new LlmExperienceModel({ llm, historyWindow: 2 }),
      buffer,
      k: 4,
      demonstrations: { env: 'webshop', provenance: REAL, excludeTrajectory: trajectory.id },
    });
    const { observation } = await env.reset({ task: trajectory.task });
    expect(observation).toEqual(trajectory.initial);
    for (const s of steps) await env.step(s.action);
    expect(llm.requests.map((r) => r.messages)).toEqual(
      exported.map((e) => e.messages.slice(0, 2)),
    );
  });
});
