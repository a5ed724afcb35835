import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/types.ts';
import { parseTree } from '../../envs/formats/web-tree.ts';
import { PageStructure } from './page-structure.ts';
import { type WebCandidate, webCandidates } from './web-candidates.ts';
import { stem, WEB_RELATIONS, webFacts, webRelations } from './web-relations.ts';

const postPage = [
  'Tab 0 (current): Search: Cast iron care — Forum',
  'URL: http://forum.test/search?q=Cast+iron+care',
  '',
  "[1] RootWebArea 'Search: Cast iron care — Forum' focused: True",
  "\t[2] link 'Forums' url: http://forum.test/forums",
  "\t[3] search ''",
  "\t\t[4] searchbox 'Search' value: Cast iron care",
  "\t\t[5] button 'Search'",
  "\t[6] list 'Posts'",
  "\t\t[7] article ''",
  "\t\t\t[8] link 'Knife angles' url: http://forum.test/f/cooking/2",
  "\t\t\t[9] StaticText '12 points · 4 comments'",
  "\t\t[10] article ''",
  "\t\t\t[11] link 'Cast iron care' url: http://forum.test/f/cooking/3",
  "\t\t\t[12] StaticText '5 points · 7 comments'",
  "\t\t\t[13] article 'Reply by rowan_badger'",
  "\t\t\t\t[14] StaticText 'Nested reply'",
].join('\n');

const formPage = [
  'Tab 0 (current): Create a post — Forum',
  'URL: http://forum.test/submit',
  '',
  "[1] RootWebArea 'Create a post — Forum' focused: True",
  "\t[2] search ''",
  "\t\t[3] searchbox 'Search'",
  "\t[4] form ''",
  "\t\t[5] textbox 'Title' required: True",
  "\t\t[6] textbox 'Body' required: False",
  "\t\t[7] button 'Create post'",
].join('\n');

const observe = (instruction: string, text: string, actions: string[]): Observation => ({
  instruction,
  text,
  actions: [...actions, 'stop [<answer>]'],
});

function relations(observation: Observation, action: string, history: string[] = []) {
  const candidate = webCandidates(observation).find((c) => c.action === action) as WebCandidate;
  expect(candidate, `${action} is a candidate`).toBeDefined();
  return webRelations(webFacts(observation, history, []), candidate);
}

describe('PageStructure', () => {
  it('finds the item an element is in, without the items nested in it', () => {
    const page = new PageStructure(parseTree(postPage)?.nodes ?? []);
    const at = (id: string) => page.nodes.findIndex((n) => n.id === id);
    expect(page.blockText(at('12'))).toBe('Cast iron care 5 points · 7 comments');
    expect(page.blockText(at('14'))).toBe('Reply by rowan_badger Nested reply');
    expect(page.blockText(at('2'))).toBe('');
    expect(page.fields(page.form(at('5')))).toEqual([at('4')]);
  });
});

describe('webRelations', () => {
  const question = observe('How many comments does "Cast iron care" have?', postPage, [
    'click [8]',
    'click [11]',
  ]);

  it('picks out the link the instruction quotes, and the number its item holds', () => {
    expect(relations(question, 'click [11]')[0]).toBe(1);
    expect(relations(question, 'click [8]')[0]).toBe(0);
    const seven = relations(question, 'stop [7]');
    const four = relations(question, 'stop [4]');
    expect(seven[5]).toBe(1); // its item holds the quoted title
    expect(four[5]).toBe(0);
    expect(seven[8]).toBe(1); // "comments" beside it, as asked
    expect(relations(question, 'stop [5]')[8]).toBe(0); // "points" is not asked
    expect(seven[19]).toBe(1); // a number for "how many"
    expect(relations(question, 'stop [Knife angles]')[19]).toBe(-1);
  });

  it('matches a quoted value with the field the instruction names before it', () => {
    const create = observe(
      'Create a post titled "Pan care" with the body "Oil it after every wash"',
      formPage,
      ['type [3] [<text>]', 'type [5] [<text>]', 'type [6] [<text>]', 'click [7]'],
    );
    const actions = webCandidates(create).map((c) => c.action);
    // Form fields take their text without Enter; the search box submits with it.
    expect(actions).toContain('type [5] [Pan care] [0]');
    expect(actions).toContain('type [3] [Pan care] [1]');
    expect(relations(create, 'type [5] [Pan care] [0]')[12]).toBe(1);
    expect(relations(create, 'type [6] [Pan care] [0]')[12]).toBe(-1);
    expect(relations(create, 'type [6] [Oil it after every wash] [0]')[12]).toBe(1);
    expect(relations(create, 'click [7]')[14]).toBe(1); // the form's submit
    const typed = ['type [5] [Pan care] [0]'];
    expect(relations(create, 'type [5] [Pan care] [0]', typed)[10]).toBe(1);
  });

  it('knows a form holds every quoted value, and a page visited before', () => {
    const filled = formPage
      .replace("'Title' required", "'Title' value: Pan care required")
      .replace("'Body' required", "'Body' value: Oil it after every wash required");
    const create = observe(
      'Create a post titled "Pan care" with the body "Oil it after every wash"',
      filled,
      ['click [7]'],
    );
    expect(relations(create, 'click [7]')[13]).toBe(1);
    expect(relations(observe('x "Pan care"', formPage, ['click [7]']), 'click [7]')[13]).toBe(0);
    const back = webFacts(question, ['click [8]'], [{ ...question, text: postPage }]);
    const candidate = webCandidates(question).find((c) => c.action === 'click [8]');
    expect(webRelations(back, candidate as WebCandidate)[17]).toBe(0);
    const visited = webFacts(
      question,
      ['click [8]', 'go_back'],
      [
        {
          ...question,
          text: postPage.replace(
            'URL: http://forum.test/search?q=Cast+iron+care',
            'URL: http://forum.test/f/cooking/2',
          ),
        },
        question,
      ],
    );
    expect(webRelations(visited, candidate as WebCandidate)[17]).toBe(1);
  });

  it('has one value per relation, and stems words alike', () => {
    expect(relations(question, 'stop []')).toHaveLength(WEB_RELATIONS);
    expect(relations(question, 'stop []')[21]).toBe(1);
    expect(stem('titled')).toBe(stem('Title'.toLowerCase()));
    expect(stem('comments')).toBe('comment');
  });
});
