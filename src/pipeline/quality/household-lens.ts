import type { Trajectory } from '../../core/types.ts';
import { parseCommand, parseFeedback } from '../../envs/formats/alfworld-grammar.ts';
import type { ObservationFacts, QualityLens } from '../../envs/quality-lens.ts';

const ENTITY = /\b([a-z]+) (\d+)\b/g;

/**
 * The quality lens of ALFWorld-like households. Entities: every `<type> <n>` name (`apple 2`,
 * `cabinet 3`). Facts: what a receptacle shows whenever the agent sees it — on arriving, opening
 * or examining it (`receptacle:X` → `closed`, or its sorted contents). An action naming X (open,
 * close, take from, move to, heat/cool/clean with, use) invalidates what was known of X; going to
 * X or examining it does not, so a revisit with nothing done to X in between must show the same.
 * And where each object lies (`object:O` → the receptacle it was seen in): one object is in one
 * place until an action takes or moves it, so a `candle 1` seen in two cabinets is inconsistent.
 */
export const householdLens: QualityLens = {
  family: 'household',
  entities(text) {
    return [...text.matchAll(ENTITY)].map((m) => `${m[1]} ${m[2]}`);
  },
  facts(trajectory: Trajectory) {
    const out: ObservationFacts[] = [{ t: 0, invalidates: [], facts: [] }];
    for (const [i, step] of trajectory.steps.entries()) {
      const command = parseCommand(step.action);
      const invalidates: string[] = [];
      if (command && 'target' in command && command.verb !== 'go' && command.verb !== 'examine')
        invalidates.push(`receptacle:${command.target}`);
      if (command && (command.verb === 'take' || command.verb === 'move'))
        invalidates.push(`object:${command.object}`);
      const facts: Array<[string, string]> = [];
      if (!step.info?.invalidAction) {
        const seen = parseFeedback(step.observation.text);
        if (seen.kind === 'arrive' || seen.kind === 'open' || seen.kind === 'examine-receptacle') {
          const closed = 'closed' in seen && seen.closed === true;
          const contents = [...(seen.contents ?? [])].sort().join(', ');
          facts.push([`receptacle:${seen.at}`, closed ? 'closed' : `open: ${contents}`]);
          for (const object of seen.contents ?? []) facts.push([`object:${object}`, seen.at]);
        }
      }
      out.push({ t: i + 1, invalidates, facts });
    }
    return out;
  },
};
