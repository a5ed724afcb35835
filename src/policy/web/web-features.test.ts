import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/types.ts';
import { webTokens } from './web-features.ts';

const post: Observation = {
  instruction: 'How many comments does the post "Cast iron care" have?',
  text: [
    'Tab 0 (current): Cast iron care',
    'URL: http://forum.test/f/cooking/3',
    '',
    "[1] RootWebArea 'Cast iron care' focused: True",
    "\t[2] heading 'Cast iron care'",
    "\t[3] StaticText '3 comments'",
    "\t[4] searchbox 'Search' required: False",
  ].join('\n'),
  actions: ['type [4] [<text>]', 'stop [<answer>]'],
};
const typed = ['type [4] [Cast iron care] [1]', 'click [9]'];

describe('webTokens', () => {
  it('tells a value typed before in the episode from a new one', () => {
    const again = webTokens(
      post,
      typed,
      'forum.test/f/cooking/N',
      'type [4] [Cast iron care] [1]',
      '',
    );
    const fresh = webTokens(post, typed, 'forum.test/f/cooking/N', 'type [4] [pans] [1]', '');
    expect(again).toContain('wt:again|how_many');
    expect(fresh).toContain('wt:new|how_many');
  });

  it('knows the page the instruction names, and what the episode did last', () => {
    const tokens = webTokens(post, typed, 'k', 'stop [3]', 'StaticText comments 3');
    expect(tokens).toContain('wn:1|stop|how_many');
    expect(tokens).toContain('wl:click|stop');
    expect(tokens).toContain('ws:1|stop|how_many');
    const elsewhere = { ...post, text: post.text.replaceAll('Cast iron care', 'Knife angles') };
    expect(webTokens(elsewhere, typed, 'k', 'stop [3]', '')).toContain('wn:0|stop|how_many');
  });

  it('counts the question words around an answer, and marks the empty answer', () => {
    const near = webTokens(post, [], 'k', 'stop [3]', 'StaticText comments');
    expect(near).toContain('wa:1|how_many');
    expect(webTokens(post, [], 'k', 'stop []', 'stop no answer')).toContain('we:1|1|how_many');
  });
});
