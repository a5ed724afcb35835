import { describe, expect, it } from 'vitest';
import { matchAction, parseStructuredAnswer, parseTextAnswer } from './parse.ts';

const page = ['click[Back to Search]', 'click[Next >]', 'click[B0ABC12345]', 'click[Buy Now]'];
const searchPage = ['search[<query>]'];

describe('parseTextAnswer', () => {
  it('reads the thought and the action of a plain answer', () => {
    const parsed = parseTextAnswer(
      'Thought: the mug matches, so I buy it.\nAction: click[Buy Now]',
      page,
    );
    expect(parsed).toEqual({
      ok: true,
      action: 'click[Buy Now]',
      thought: 'the mug matches, so I buy it.',
    });
  });

  it.each([
    ['Action: click[buy now]', 'case'],
    ['Action: `click[Buy Now]`', 'backticks'],
    ['Action: click[Buy Now].', 'a trailing full stop'],
    ['**Action:** "click[Buy Now]"', 'markdown and quotes'],
    ['Action:\n```\nclick[Buy Now]\n```', 'a code fence on its own lines'],
    ['Thought: buy it. Action: click[Buy Now]', 'one line'],
    ['Action:  click[Buy   Now]  ', 'extra spaces'],
    ['action - click: no. Action: - click[Buy Now]', 'a list marker'],
  ])('accepts %j (%s) as the listed action', (answer) => {
    expect(parseTextAnswer(answer, page)).toMatchObject({ ok: true, action: 'click[Buy Now]' });
  });

  it('takes the first "Action:" line and ignores what the model goes on to invent', () => {
    const answer =
      'Thought: next page.\nAction: click[Next >]\nObservation: page 2\nAction: click[Buy Now]';
    expect(parseTextAnswer(answer, page)).toMatchObject({ ok: true, action: 'click[Next >]' });
  });

  it('does not mistake a word ending in "action:" for the label', () => {
    expect(parseTextAnswer('The transaction: pending.', page)).toMatchObject({ ok: false });
  });

  it('fills a template with any text in its place, keeping the template spelling', () => {
    expect(parseTextAnswer('Action: Search[Red Ceramic Mug]', searchPage)).toMatchObject({
      ok: true,
      action: 'search[Red Ceramic Mug]',
    });
    expect(matchAction('go to  cabinet 2', ['go to <place>'])).toEqual({
      ok: true,
      action: 'go to cabinet 2',
    });
  });

  it('says what is wrong when the answer is unusable', () => {
    expect(parseTextAnswer('I would buy the mug.', page)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('no "Action:" line'),
      attemptedAction: '',
      thought: 'I would buy the mug.',
    });
    expect(parseTextAnswer('Action: click[Add to Cart]', page)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('"click[Add to Cart]" is not one of the admissible actions'),
      attemptedAction: 'click[Add to Cart]',
    });
    expect(parseTextAnswer('Action: search[<query>]', searchPage)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('still has its placeholder'),
    });
    expect(parseTextAnswer('Action: search[]', searchPage)).toMatchObject({ ok: false });
    expect(parseTextAnswer('Thought: hm.\nAction:', page)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('empty'),
    });
  });

  it('accepts any action when the env lists none', () => {
    expect(parseTextAnswer('Action: open the door.', undefined)).toMatchObject({
      ok: true,
      action: 'open the door',
    });
  });
});

describe('parseStructuredAnswer', () => {
  it('matches the JSON answer’s action like a text one', () => {
    expect(parseStructuredAnswer({ thought: ' buy ', action: 'click[buy now]' }, page)).toEqual({
      ok: true,
      action: 'click[Buy Now]',
      thought: 'buy',
    });
    expect(parseStructuredAnswer({ thought: '', action: 'click[Cart]' }, page)).toMatchObject({
      ok: false,
      thought: undefined,
    });
  });
});
