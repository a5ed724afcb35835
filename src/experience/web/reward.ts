import { contentWords, words } from '../../core/text.ts';
import { RewardModel } from '../reward-model.ts';

/**
 * What the reward model knows of an episode that ended with `stop [answer]`: the instruction,
 * the answer, the text of the final page and of every page seen. Never the task's spec (its
 * reference answers and checks would make the model an oracle).
 */
export interface EpisodeOutcome {
  instruction: string;
  answer: string;
  /** The final page's names, one a line, and its URL path. */
  finalText: string;
  /** Every page's names seen in the episode. */
  visitedText: string;
  /** The evaluator's reward (real episodes); unused when predicting. */
  reward: number;
}

const NEIGHBOURS = 5;
const MIN_SIMILARITY = 0.3;
/** An instruction that asks for information (an answer is expected), not for a change. */
const QUESTION =
  /\?|\btell me\b|\breport\b|\banswer\b|^(what|how|which|who|whom|whose|when|where|why|give)\b/i;
/** Lines after a line about the instruction's subject where an answer counts as next to it. */
const NEAR = 2;

/**
 * The reward of `stop [answer]`, fit on the buffer's real episodes' evaluator outcomes. A real
 * episode with the same instruction, answer and final page gives its own reward; otherwise a
 * logistic model over {@link outcomeFeatures} (whether the answer is grounded in the pages,
 * whether the final page is about the instruction and resembles the final pages of successful
 * episodes of similar instructions) says success (1) or failure (0).
 */
export class WebRewardModel {
  private readonly model: RewardModel;
  private readonly seen = new Map<string, number>();

  constructor(private readonly episodes: readonly EpisodeOutcome[]) {
    for (const e of episodes) if (!this.seen.has(key(e))) this.seen.set(key(e), e.reward);
    const rows = episodes.map((e) => outcomeFeatures(e, this.neighbours(e)));
    this.model = RewardModel.fit(
      rows,
      episodes.map((e) => e.reward),
    );
  }

  /** Real episodes the model was fit on. */
  get samples(): number {
    return this.model.samples;
  }

  /** The predicted reward (0 or 1) and how it was decided. */
  predict(outcome: Omit<EpisodeOutcome, 'reward'>): { reward: 0 | 1; why: string } {
    const seen = this.seen.get(key(outcome));
    if (seen !== undefined)
      return {
        reward: seen >= 1 ? 1 : 0,
        why: 'a real episode gave this very answer on this very page',
      };
    const features = outcomeFeatures(outcome, this.neighbours(outcome));
    const reward = this.model.predict(features) >= 1 ? 1 : 0;
    return {
      reward,
      why: `the reward model fit on ${this.model.samples} real episodes (features ${features.map((f) => f.toFixed(2)).join(', ')})`,
    };
  }

  /** Real episodes with the most similar instructions, other than `outcome` itself. */
  private neighbours(outcome: Omit<EpisodeOutcome, 'reward'>): EpisodeOutcome[] {
    const mine = new Set(contentWords(outcome.instruction));
    return this.episodes
      .filter((e) => e !== outcome)
      .map((e) => ({ e, s: jaccard(mine, new Set(contentWords(e.instruction))) }))
      .filter(({ s }) => s >= MIN_SIMILARITY)
      .sort((a, b) => b.s - a.s)
      .slice(0, NEIGHBOURS)
      .map(({ e }) => e);
  }
}

/**
 * Features of an ended episode, each in [0, 1] or [-1, 1]: the answer is blank where the
 * instruction asks for information, or where it asks for a change; it stands on the
 * final page next to what the instruction is about; the share of its words on the final page and on any page seen; it appears whole on the final page; the share of
 * the instruction's words on the final page; the share of the instruction's quoted phrases on it;
 * how much more the final page resembles successful than failed neighbours' final pages; whether
 * the answer has the form (number or not) of the successful neighbours' answers.
 */
export function outcomeFeatures(
  outcome: Omit<EpisodeOutcome, 'reward'>,
  neighbours: readonly EpisodeOutcome[],
): number[] {
  const answer = outcome.answer.trim();
  const blank = answer === '' || /^n\/?a$/i.test(answer) ? 1 : 0;
  const question = QUESTION.test(outcome.instruction.trim()) ? 1 : 0;
  const answerWords = words(answer);
  const finalWords = new Set(words(outcome.finalText));
  const visitedWords = new Set(words(outcome.visitedText));
  const share = (ws: readonly string[], among: Set<string>) =>
    ws.length === 0 ? 0 : ws.filter((w) => among.has(w)).length / ws.length;
  const whole =
    answer.length > 0 && outcome.finalText.toLowerCase().includes(answer.toLowerCase()) ? 1 : 0;
  const quoted = [...outcome.instruction.matchAll(/["“'‘]([^"”'’]{2,})["”'’]/g)].map((m) =>
    (m[1] as string).toLowerCase(),
  );
  const finalLower = outcome.finalText.toLowerCase();
  const quotedShare =
    quoted.length === 0 ? 0 : quoted.filter((q) => finalLower.includes(q)).length / quoted.length;
  const resemblance = (group: readonly EpisodeOutcome[]) =>
    group.length === 0
      ? 0
      : Math.max(...group.map((e) => jaccard(finalWords, new Set(words(e.finalText)))));
  const successes = neighbours.filter((e) => e.reward >= 1);
  const failures = neighbours.filter((e) => e.reward < 1);
  const numeric = (text: string) => /^\s*-?\d+(\.\d+)?\s*$/.test(text);
  const successNumeric = successes.filter((e) => numeric(e.answer)).length;
  const form =
    successes.length === 0
      ? 0.5
      : (numeric(answer) ? successNumeric : successes.length - successNumeric) / successes.length;
  return [
    blank * question,
    blank * (1 - question),
    answerNearSubject(outcome.finalText, answerWords, outcome.instruction, quoted),
    share(answerWords, finalWords),
    share(answerWords, visitedWords),
    whole,
    share(contentWords(outcome.instruction), finalWords),
    quotedShare,
    resemblance(successes) - resemblance(failures),
    form,
  ];
}

/**
 * 1 when the answer's words stand on the final page at most {@link NEAR} lines after a line about the
 * instruction's subject (a quoted phrase of it, else a line mostly of its words); the page's
 * title line counts for every line. Tells a count read off the right post from one read off
 * another.
 */
function answerNearSubject(
  finalText: string,
  answerWords: readonly string[],
  instruction: string,
  quoted: readonly string[],
): number {
  if (answerWords.length === 0) return 0;
  const lines = finalText.toLowerCase().split('\n');
  const wanted = new Set(contentWords(instruction));
  const about = (line: string) => {
    if (quoted.length > 0) return quoted.some((q) => line.includes(q));
    const ws = contentWords(line);
    return ws.length > 0 && ws.filter((w) => wanted.has(w)).length / ws.length >= 0.5;
  };
  const subject = lines.flatMap((line, i) => (about(line) ? [i] : []));
  if (subject.length === 0) return 0;
  // Line 1 is the page's first name, its title: a page about the subject is about it throughout.
  const wholePage = subject.includes(1);
  return lines.some((line, i) => {
    const ws = new Set(words(line));
    if (!answerWords.every((w) => ws.has(w))) return false;
    return wholePage || subject.some((j) => i - j >= 0 && i - j <= NEAR);
  })
    ? 1
    : 0;
}

function key(outcome: Omit<EpisodeOutcome, 'reward'>): string {
  return [outcome.instruction, words(outcome.answer).join(' '), outcome.finalText].join('\u0000');
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}
