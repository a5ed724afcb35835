import { contentWords, words } from '../../core/text.ts';
import { RewardModel } from '../reward-model.ts';
import { outcomeDoubt } from '../uncertainty.ts';

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
  /** Names of the buttons the episode clicked. */
  pressed: readonly string[];
  /** Texts the episode typed. */
  entered: readonly string[];
  /** The evaluator's reward (real episodes); unused when predicting. */
  reward: number;
}

const NEIGHBOURS = 5;
/** Instructions this alike ({@link templateWords}' Jaccard) are taken for one task template. */
const SAME_TEMPLATE = 0.6;
/** Successful episodes of a template needed before what they share is required. */
const MIN_ALIKE = 1;
const MIN_SIMILARITY = 0.3;
/** An instruction that asks for information (an answer is expected), not for a change. */
const QUESTION =
  /\?|\btell me\b|\breport\b|\banswer\b|^(what|how|which|who|whom|whose|when|where|why|give)\b/i;
/** A quoted phrase of an instruction. */
const QUOTED = /["“'‘]([^"”'’]{2,})["”'’]/g;
/** Lines after a line about the instruction's subject where an answer counts as next to it. */
const NEAR = 2;

/**
 * The reward of `stop [answer]`, learnt from the buffer's real episodes' evaluator outcomes, in
 * layers: a real episode with the same instruction, answer and final page gives its own reward;
 * real successes of the same task, then of the same task template, say what success needs
 * ({@link WebRewardModel.sameTask}, {@link WebRewardModel.otherTemplate}); otherwise a logistic
 * model over {@link outcomeFeatures}, fit with successes and failures weighed equally, says
 * success (1) or failure (0).
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
      { balanced: true },
    );
  }

  /** Real episodes the model was fit on. */
  get samples(): number {
    return this.model.samples;
  }

  /**
   * The predicted reward (0 or 1), how it was decided, and how unsure it is (`doubt`, in
   * [0, 1]): 0 where real episodes of this task or template decide it, the doubt of the fitted
   * classifier's success probability (`outcomeDoubt`) otherwise, 1 where it has none.
   */
  predict(outcome: Omit<EpisodeOutcome, 'reward'>): { reward: 0 | 1; why: string; doubt: number } {
    const seen = this.seen.get(key(outcome));
    if (seen !== undefined)
      return {
        reward: seen >= 1 ? 1 : 0,
        why: 'a real episode gave this very answer on this very page',
        doubt: 0,
      };
    const verdict = this.sameTask(outcome) ?? this.otherTemplate(outcome);
    if (verdict) return { ...verdict, doubt: 0 };
    const features = outcomeFeatures(outcome, this.neighbours(outcome));
    const reward = this.model.predict(features) >= 1 ? 1 : 0;
    const p = this.model.successProbability(features);
    return {
      reward,
      why: `the reward model fit on ${this.model.samples} real episodes (features ${features.map((f) => f.toFixed(2)).join(', ')})`,
      doubt: p === undefined ? 1 : outcomeDoubt(p),
    };
  }

  /**
   * Real episodes of this very instruction that succeeded say what success looked like: a
   * question's answer that holds none of their answers fails; a change that leaves a button all
   * of them pressed unpressed fails; a navigation (no buttons) ending on a page none of them ended
   * on fails. Undefined when no such episode is known, or when the outcome agrees (the later
   * layers then decide, from the whole episode).
   */
  private sameTask(
    outcome: Omit<EpisodeOutcome, 'reward'>,
  ): { reward: 0; why: string } | undefined {
    const successes = this.episodes.filter(
      (e) => e.reward >= 1 && e.instruction === outcome.instruction,
    );
    if (successes.length === 0) return undefined;
    if (QUESTION.test(outcome.instruction.trim())) {
      // A question: the answer must hold a successful one (evaluators also accept answers that
      // include the reference); whether it says more than that is the later layers' call.
      const mine = new Set(words(outcome.answer));
      const holds = (e: EpisodeOutcome) => {
        const theirs = words(e.answer);
        return theirs.length === 0 ? mine.size === 0 : theirs.every((w) => mine.has(w));
      };
      if (successes.some(holds)) return undefined;
      return {
        reward: 0,
        why: `a real episode of this task succeeded with another answer ("${successes[0]?.answer}")`,
      };
    }
    // A change or a navigation: a change needs the buttons every success pressed (from whatever
    // page); a navigation, the page a success ended on.
    const buttons = sharedButtons(successes);
    if (buttons.length > 0) {
      const pressed = new Set(outcome.pressed.map(buttonKind));
      const missing = buttons.filter((b) => !pressed.has(b));
      if (missing.length === 0) return undefined;
      return {
        reward: 0,
        why: `real episodes of this task pressed "${missing[0]}", this one did not`,
      };
    }
    const path = pathOf(outcome.finalText);
    if (successes.some((e) => pathOf(e.finalText) === path)) return undefined;
    return {
      reward: 0,
      why: `real episodes of this task succeeded on another page (${pathOf(successes[0]?.finalText ?? '')}), not ${path}`,
    };
  }

  /**
   * How many successful real episodes the model has of the instruction's task template (very
   * alike instructions): the evidence it judges an unseen task of the template by. With none it
   * falls back to its fitted features alone, which say little for a task no real episode showed.
   */
  templateEvidence(instruction: string): number {
    return this.alikeSuccesses(instruction).length;
  }

  /**
   * Successful real episodes of the same task template (very alike instructions) say what their
   * successes had in common; an episode without it fails: a question's answer of another form (a
   * date, a number, a blank …), a final page of another {@link pagePattern} (when two or more
   * agree on one), a button all of them pressed (`Downvote`, `Save bio`) left unpressed.
   */
  private otherTemplate(
    outcome: Omit<EpisodeOutcome, 'reward'>,
  ): { reward: 0; why: string } | undefined {
    const alike = this.alikeSuccesses(outcome.instruction);
    if (alike.length < MIN_ALIKE) return undefined;
    const n = `${alike.length} successful real episode${alike.length === 1 ? '' : 's'} of alike instructions`;
    const kind = answerKind(outcome.answer);
    const kinds = new Set(alike.map((e) => answerKind(e.answer)));
    // Only questions: a change's success is in the site's state, whatever the answer says.
    if (QUESTION.test(outcome.instruction.trim()) && kinds.size === 1 && !kinds.has(kind))
      return { reward: 0, why: `${n} answered with a ${[...kinds][0]}, this is a ${kind}` };
    const page = pagePattern(outcome.finalText, outcome.instruction);
    const pages = new Set(alike.map((e) => pagePattern(e.finalText, e.instruction)));
    // Two or more: a change may end on one page or another (a redirect after deleting, say).
    if (alike.length >= 2 && pages.size === 1 && !pages.has(page))
      return { reward: 0, why: `${n} ended on a page like ${[...pages][0]}, this one on ${page}` };
    const pressed = new Set(outcome.pressed.map(buttonKind));
    const missing = sharedButtons(alike).filter((b) => !pressed.has(b));
    if (missing.length > 0)
      return { reward: 0, why: `${n} pressed "${missing[0]}", this one did not` };
    return undefined;
  }

  /** The successful real episodes of instructions of the same template as `instruction`. */
  private alikeSuccesses(instruction: string): EpisodeOutcome[] {
    const mine = templateWords(instruction);
    return this.episodes.filter(
      (e) => e.reward >= 1 && jaccard(mine, templateWords(e.instruction)) >= SAME_TEMPLATE,
    );
  }

  /** Real episodes with the most similar instructions, other than `outcome` itself. */
  private neighbours(outcome: Omit<EpisodeOutcome, 'reward'>): EpisodeOutcome[] {
    const mine = templateWords(outcome.instruction);
    return this.episodes
      .filter((e) => e !== outcome)
      .map((e) => ({ e, s: jaccard(mine, templateWords(e.instruction)) }))
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
 * how much more the final page resembles successful than failed neighbours' final pages; the share
 * of successful neighbours whose answers have this answer's {@link answerKind}; the shares of
 * successful and of failed neighbours that ended on a page of this one's {@link pagePattern}; the
 * share of successful neighbours whose clicked buttons this episode clicked too; the share of
 * successful neighbours that, as this episode, did (or did not) type a quoted phrase of their
 * instruction.
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
  const wordShare = (ws: readonly string[], among: Set<string>) =>
    ws.length === 0 ? 0 : ws.filter((w) => among.has(w)).length / ws.length;
  const whole =
    answer.length > 0 && outcome.finalText.toLowerCase().includes(answer.toLowerCase()) ? 1 : 0;
  const quoted = quotedIn(outcome.instruction);
  const finalLower = outcome.finalText.toLowerCase();
  const quotedShare =
    quoted.length === 0 ? 0 : quoted.filter((q) => finalLower.includes(q)).length / quoted.length;
  const resemblance = (group: readonly EpisodeOutcome[]) =>
    group.length === 0
      ? 0
      : Math.max(...group.map((e) => jaccard(finalWords, new Set(words(e.finalText)))));
  const successes = neighbours.filter((e) => e.reward >= 1);
  const failures = neighbours.filter((e) => e.reward < 1);
  const share = <T>(group: readonly T[], agrees: (e: T) => boolean, none: number) =>
    group.length === 0 ? none : group.filter(agrees).length / group.length;
  const kind = answerKind(answer);
  const form = share(successes, (e) => answerKind(e.answer) === kind, 0.5);
  const pattern = pagePattern(outcome.finalText, outcome.instruction);
  const samePage = (e: EpisodeOutcome) => pagePattern(e.finalText, e.instruction) === pattern;
  const pressed = new Set(outcome.pressed.map(buttonKind));
  const pressedAlike = (e: EpisodeOutcome) =>
    e.pressed.every((name) => pressed.has(buttonKind(name)));
  const typedQuotes = (e: Omit<EpisodeOutcome, 'reward'>) => {
    const typed = e.entered.join('\n').toLowerCase();
    return quotedIn(e.instruction).some((q) => typed.includes(q));
  };
  const typedQuote = typedQuotes(outcome);
  return [
    blank * question,
    blank * (1 - question),
    answerNearSubject(outcome.finalText, answerWords, outcome.instruction, quoted),
    wordShare(answerWords, finalWords),
    wordShare(answerWords, visitedWords),
    whole,
    wordShare(contentWords(outcome.instruction), finalWords),
    quotedShare,
    resemblance(successes) - resemblance(failures),
    form,
    share(successes, samePage, 0.5),
    share(failures, samePage, 0),
    share(successes, pressedAlike, 0.5),
    share(successes, (e) => typedQuotes(e) === typedQuote, 0.5),
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

const templates = new Map<string, Set<string>>();

/**
 * The content words of an instruction with each quoted phrase one placeholder word: instructions
 * of one template then look alike whatever the (long) post titles they quote, and instructions of
 * other templates quoting the same title do not.
 */
function templateWords(instruction: string): Set<string> {
  let set = templates.get(instruction);
  if (!set) {
    set = new Set(contentWords(instruction.replace(QUOTED, ' quotedphrase ')));
    if (templates.size > 10_000) templates.clear();
    templates.set(instruction, set);
  }
  return set;
}

/** A button's name without its slot values (user names, numbers): `Upvote comment by x_y` → `upvote comment by`. */
function buttonKind(name: string): string {
  return name
    .toLowerCase()
    .replace(/\S*[_\d]\S*/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The {@link buttonKind}s every one of `episodes` pressed. */
function sharedButtons(episodes: readonly EpisodeOutcome[]): string[] {
  return [...new Set(episodes[0]?.pressed.map(buttonKind))].filter((b) =>
    episodes.every((e) => e.pressed.some((name) => buttonKind(name) === b)),
  );
}

/** The instruction's quoted phrases, lower-cased. */
function quotedIn(instruction: string): string[] {
  return [...instruction.matchAll(QUOTED)].map((m) => (m[1] as string).toLowerCase());
}

/** What an answer is, by its form: blank, a date, a number (or amount), one word, or a phrase. */
export function answerKind(answer: string): 'blank' | 'date' | 'number' | 'word' | 'phrase' {
  const a = answer.trim();
  if (a === '' || /^n\/?a$/i.test(a)) return 'blank';
  if (/^\d{4}-\d{2}-\d{2}$/.test(a)) return 'date';
  if (/^[-+]?\$?\s?\d[\d,]*(\.\d+)?%?$/.test(a)) return 'number';
  if (/^\S+$/.test(a)) return 'word';
  return 'phrase';
}

/**
 * The final page's URL as a pattern of its instruction: a path segment or query value made of the
 * instruction's words becomes `{i}`, a number `#`, any other segment after the first `*`
 * (`/f/cooking/13` for "Open the post 'Cast iron' of the cooking forum" → `/f/{i}/#`). Episodes of one
 * task template that ended on the same kind of page share a pattern, whatever their slot values.
 */
export function pagePattern(finalText: string, instruction: string): string {
  const [path = '', query = ''] = pathOf(finalText).split('?');
  const mine = new Set(words(instruction));
  const slot = (value: string, keep: boolean) => {
    const ws = words(value);
    if (ws.length > 0 && /^\d+$/.test(value)) return '#';
    if (ws.length > 0 && ws.every((w) => mine.has(w))) return '{i}';
    return keep ? value : '*';
  };
  const segments = path.split('/').map((s, i) => slot(decoded(s), i <= 1));
  const params = [...new URLSearchParams(query)].map(([k, v]) => `${k}=${slot(v, false)}`);
  return `${segments.join('/')}${params.length > 0 ? `?${params.join('&')}` : ''}`;
}

/** The URL path and query of an outcome's final page (the first line of its `finalText`). */
function pathOf(finalText: string): string {
  return finalText.split('\n', 1)[0] ?? '';
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
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
