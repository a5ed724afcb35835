import { describe, expect, it } from 'vitest';
import { answerKind, type EpisodeOutcome, pagePattern, WebRewardModel } from './reward.ts';

const outcome = (
  o: Partial<EpisodeOutcome> & Pick<EpisodeOutcome, 'instruction'>,
): EpisodeOutcome => ({
  answer: '',
  finalText: '/\nFront page',
  visitedText: '',
  pressed: [],
  entered: [],
  reward: 1,
  ...o,
});

/** Real outcomes of a few templates: join dates, downvotes, forum pages; a failure or two. */
function realOutcomes(): EpisodeOutcome[] {
  const users = ['amber_heron', 'basil_orca', 'kelp_badger'];
  const posts = ['Cast iron care', 'My first chili', 'Help with a smoker'];
  return [
    ...users.map((u, i) =>
      outcome({
        instruction: `When did ${u} join the forum? Answer as YYYY-MM-DD.`,
        answer: `2022-0${i + 1}-1${i}`,
        finalText: `/user/${u}\n${u}\nJoined 2022-0${i + 1}-1${i}`,
      }),
    ),
    ...posts.map((p, i) =>
      outcome({
        instruction: `Downvote the post "${p}".`,
        finalText: `/f/cooking/${10 + i}\n${p}\n3 points`,
        pressed: ['Downvote'],
      }),
    ),
    ...['cooking', 'jazz'].map((f) =>
      outcome({ instruction: `Take me to f/${f}.`, finalText: `/f/${f}\nf/${f}` }),
    ),
    outcome({
      instruction: 'When did amber_heron join the forum? Answer as YYYY-MM-DD.',
      answer: 'amber_heron',
      finalText: '/user/amber_heron\namber_heron\nJoined 2022-01-10',
      reward: 0,
    }),
    outcome({
      instruction: 'Downvote the post "Cast iron care".',
      finalText: '/f/cooking/10\nCast iron care\n4 points',
      reward: 0,
    }),
  ];
}

describe('WebRewardModel', () => {
  const model = new WebRewardModel(realOutcomes());

  it('a real success of this very task: another answer, or a blank on another page, fails', () => {
    const ask = 'When did basil_orca join the forum? Answer as YYYY-MM-DD.';
    const page = '/user/basil_orca\nbasil_orca\nJoined 2022-02-11';
    const wrong = model.predict(
      outcome({ instruction: ask, answer: '2022-02-12', finalText: page }),
    );
    expect(wrong.reward).toBe(0);
    expect(wrong.why).toMatch(/another answer/);
    const right = model.predict(
      outcome({ instruction: ask, answer: '2022-02-11', finalText: page }),
    );
    expect(right.why).not.toMatch(/another answer/);
    const away = model.predict(
      outcome({ instruction: 'Take me to f/jazz.', finalText: '/f/cooking\nf/cooking' }),
    );
    expect(away).toMatchObject({ reward: 0 });
    expect(away.why).toMatch(/another page/);
  });

  it('the same task: an answer holding the right one, or a change made from another page, passes layer 1', () => {
    const ask = 'When did basil_orca join the forum? Answer as YYYY-MM-DD.';
    const page = '/user/basil_orca\nbasil_orca\nJoined 2022-02-11';
    const wordy = model.predict(
      outcome({ instruction: ask, answer: 'Joined 2022-02-11', finalText: page }),
    );
    expect(wordy.why).not.toMatch(/another answer/);
    const down = 'Downvote the post "My first chili".';
    const fromList = model.predict(
      outcome({ instruction: down, finalText: '/f/cooking\nf/cooking', pressed: ['Downvote'] }),
    );
    expect(fromList.why).not.toMatch(/this task/);
    const unpressed = model.predict(
      outcome({ instruction: down, finalText: '/f/cooking/11\nMy first chili\n2 points' }),
    );
    expect(unpressed).toMatchObject({ reward: 0 });
    expect(unpressed.why).toMatch(/real episodes of this task pressed "downvote"/);
  });

  it('an unseen task of a known template: what every success of the template shared is required', () => {
    const ask = 'When did indigo_raven join the forum? Answer as YYYY-MM-DD.';
    const page = '/user/indigo_raven\nindigo_raven\nJoined 2021-05-02';
    const phrase = model.predict(
      outcome({ instruction: ask, answer: 'Joined 2021', finalText: page }),
    );
    expect(phrase.reward).toBe(0);
    expect(phrase.why).toMatch(/answered with a date, this is a phrase/);
    const date = model.predict(
      outcome({ instruction: ask, answer: '2021-05-02', finalText: page }),
    );
    expect(date.reward).toBe(1);

    const down = 'Downvote the post "Lessons from a tripod".';
    const there = '/f/photography/40\nLessons from a tripod\n2 points';
    const unpressed = model.predict(outcome({ instruction: down, finalText: there }));
    expect(unpressed.reward).toBe(0);
    expect(unpressed.why).toMatch(/pressed "downvote"/);
    const pressed = model.predict(
      outcome({ instruction: down, finalText: there, pressed: ['Downvote'] }),
    );
    expect(pressed.reward).toBe(1);
    const elsewhere = model.predict(
      outcome({ instruction: down, finalText: '/forums\nForums', pressed: ['Downvote'] }),
    );
    expect(elsewhere.reward).toBe(0);
    expect(elsewhere.why).toMatch(/ended on a page like \/f\/\*\/#/);
  });
});

describe("WebRewardModel's doubt", () => {
  const model = new WebRewardModel(realOutcomes());

  it('is 0 where real episodes decide, the fitted classifier’s doubt where they do not', () => {
    const seen = realOutcomes()[0] as EpisodeOutcome;
    expect(model.predict(seen)).toMatchObject({ reward: 1, doubt: 0 });
    const ask = 'When did basil_orca join the forum? Answer as YYYY-MM-DD.';
    const wrong = model.predict(
      outcome({ instruction: ask, answer: '2022-02-12', finalText: '/user/basil_orca' }),
    );
    expect(wrong).toMatchObject({ reward: 0, doubt: 0 });
    // A task of no template the buffer has: the fitted model alone decides.
    const novel = model.predict(
      outcome({ instruction: 'Subscribe to the jazz forum.', finalText: '/f/jazz\nf/jazz' }),
    );
    expect(novel.why).toMatch(/reward model fit/);
    // Ten real episodes of other templates: a guess, neither sure nor blind (p ≈ 0.76 here).
    expect(novel.doubt).toBeGreaterThan(0.2);
    expect(novel.doubt).toBeLessThan(1);
  });
});

describe('answer kinds and page patterns', () => {
  it('tells answers apart by form', () => {
    expect(
      ['', 'N/A', '2024-01-31', '42', '$1,204.50', 'amber_heron', 'Cast iron care'].map(answerKind),
    ).toEqual(['blank', 'blank', 'date', 'number', 'number', 'word', 'phrase']);
  });

  it("writes a page's URL as a pattern of its instruction", () => {
    expect(pagePattern('/f/cooking/13\nx', 'Open the post "Cast iron" of the cooking forum')).toBe(
      '/f/{i}/#',
    );
    expect(pagePattern('/f/jazz/13\nx', 'Open the post "Cast iron" of the cooking forum')).toBe(
      '/f/*/#',
    );
    expect(pagePattern('/search?q=cast+iron\nx', 'Find posts about "cast iron"')).toBe(
      '/search?q={i}',
    );
    expect(pagePattern('/user/amber_heron\nx', 'Open the page of amber_heron')).toBe('/user/{i}');
  });
});
