/**
 * A hand-made tiny forum in the browser env's observation format, for tests of the web experience
 * models without a browser: pages as tree text with their admissible actions, and real-looking
 * trajectories (navigating, answering, searching, commenting) with evaluator-like rewards.
 */
import type { Observation, Step, Task, Trajectory } from '../../../core/types.ts';

export const ORIGIN = 'http://127.0.0.1:41234';

export interface Post {
  id: number;
  title: string;
  comments: string[];
}

export const POSTS: Post[] = [
  { id: 1, title: 'Best pasta sauce?', comments: ['Use fresh basil', 'Slow cook it'] },
  { id: 2, title: 'Sourdough starter tips', comments: ['Feed it daily'] },
  { id: 3, title: 'Cast iron care', comments: ['Oil after washing', 'No soap', 'Dry on heat'] },
  { id: 4, title: 'Knife sharpening angle', comments: [] },
];

const FIXED = [
  'scroll [down]',
  'scroll [up]',
  'go_back',
  'go_forward',
  'new_tab',
  'press [<key_comb>]',
  'goto [<url>]',
  'stop [<answer>]',
];

/** A page: tab line, URL, blank line, tree lines (`depth|[id] role 'name' …` without indent). */
export function page(title: string, path: string, lines: string[]): Observation {
  const body = lines.map((l) => {
    const [depth, rest] = l.split('|') as [string, string];
    return `${'\t'.repeat(Number(depth))}${rest}`;
  });
  const clicks: string[] = [];
  const types: string[] = [];
  for (const line of body) {
    const m = /^\t*\[(\d+)\] (\S+)/.exec(line);
    if (!m) continue;
    if (m[2] === 'link' || m[2] === 'button') clicks.push(`click [${m[1]}]`);
    if (m[2] === 'textbox' || m[2] === 'searchbox') types.push(`type [${m[1]}] [<text>]`);
  }
  return {
    text: `Tab 0 (current): ${title}\nURL: ${ORIGIN}${path}\n\n${body.join('\n')}`,
    instruction: '',
    actions: [...clicks, ...types, ...FIXED],
  };
}

export function home(): Observation {
  return page('Forum', '/', [
    "0|[1] RootWebArea 'Forum' focused: True",
    "1|[2] link 'Home'",
    "1|[3] link 'Cooking'",
    "1|[4] searchbox 'Search' required: False",
    "1|[5] button 'Search'",
  ]);
}

export function forum(posts: Post[] = POSTS): Observation {
  return page('Cooking', '/f/cooking', [
    "0|[1] RootWebArea 'Cooking' focused: True",
    "1|[2] link 'Home'",
    "1|[3] heading 'Cooking'",
    ...posts.flatMap((p, i) => [
      `1|[${4 + 2 * i}] link '${p.title}'`,
      `2|[${5 + 2 * i}] StaticText '${p.comments.length} comments'`,
    ]),
  ]);
}

export function postPage(post: Post, comment = ''): Observation {
  return page(post.title, `/f/cooking/${post.id}`, [
    `0|[1] RootWebArea '${post.title}'${comment ? '' : ' focused: True'}`,
    "1|[2] link 'Home'",
    `1|[3] heading '${post.title}'`,
    `1|[4] StaticText '${post.comments.length} comments'`,
    ...post.comments.map((c, i) => `1|[${5 + i}] StaticText '${c}'`),
    `1|[20] textbox 'Comment' ${comment ? `value: ${comment} focused: True ` : ''}required: False`,
    "1|[21] button 'Post'",
  ]);
}

export function results(query: string): Observation {
  const hits = POSTS.filter((p) =>
    query
      .toLowerCase()
      .split(' ')
      .some((w) => p.title.toLowerCase().includes(w)),
  );
  return page(`Search: ${query}`, `/search?q=${encodeURIComponent(query)}`, [
    `0|[1] RootWebArea 'Search: ${query}' focused: True`,
    "1|[2] link 'Home'",
    `1|[3] searchbox 'Search' value: ${query} required: False`,
    "1|[4] button 'Search'",
    `1|[5] heading '${hits.length} results'`,
    ...hits.map((p, i) => `1|[${6 + i}] link '${p.title}'`),
  ]);
}

/** The home page with a query typed in the search box (as the browser env shows it). */
export function homeTyped(query: string): Observation {
  const base = home();
  return {
    ...base,
    text: base.text
      .replace(
        "[4] searchbox 'Search' required: False",
        `[4] searchbox 'Search' value: ${query} focused: True required: False`,
      )
      .replace("[1] RootWebArea 'Forum' focused: True", "[1] RootWebArea 'Forum'"),
  };
}

let counter = 0;

/** A trajectory from the pages it showed after each action. */
export function trajectory(
  instruction: string,
  initial: Observation,
  steps: Array<[string, Observation, number?]>,
  spec: Record<string, unknown> = {},
): Trajectory {
  const task: Task = {
    id: `tiny-${counter++}`,
    env: 'web:tiny',
    instruction,
    spec,
    origin: 'seed',
  };
  const withInstruction = (o: Observation) => ({ ...o, instruction });
  const recorded: Step[] = steps.map(([action, observation, reward]) => {
    const stop = action.startsWith('stop');
    return {
      action,
      observation: stop
        ? { ...withInstruction(observation), actions: [] }
        : withInstruction(observation),
      reward: reward ?? 0,
      terminated: stop,
      truncated: false,
    };
  });
  return {
    id: task.id,
    env: 'web:tiny',
    task,
    initial: withInstruction(initial),
    steps: recorded,
    provenance: 'real-offline',
    policyId: 'hand',
    startedAt: '2025-01-01T00:00:00Z',
    endedAt: '2025-01-01T00:00:01Z',
  };
}

/** Count questions answered right (reward 1) and wrong (0), a search, and a comment posted. */
export function tinyForumTrajectories(): Trajectory[] {
  const out: Trajectory[] = [];
  for (const [i, post] of POSTS.entries()) {
    const link = `click [${4 + 2 * i}]`;
    const instruction = `How many comments does the post '${post.title}' have?`;
    const walk: Array<[string, Observation, number?]> = [
      ['click [3]', forum()],
      [link, postPage(post)],
    ];
    out.push(
      trajectory(instruction, home(), [
        ...walk,
        [`stop [${post.comments.length}]`, postPage(post), 1],
      ]),
      trajectory(instruction, home(), [
        ...walk,
        [`stop [${post.comments.length + 5}]`, postPage(post), 0],
      ]),
      trajectory(instruction, home(), [
        ['click [3]', forum()],
        ['stop [2]', forum(), post.comments.length === 2 ? 1 : 0],
      ]),
    );
  }
  out.push(
    trajectory("Search the forum for 'pasta' and open the first result", home(), [
      ['type [4] [pasta] [0]', homeTyped('pasta')],
      ['click [5]', results('pasta')],
      ['click [6]', postPage(POSTS[0] as Post)],
      ['stop [done]', postPage(POSTS[0] as Post), 1],
    ]),
  );
  const first = POSTS[0] as Post;
  const commented = { ...first, comments: [...first.comments, 'Nice!'] };
  out.push(
    trajectory("Comment 'Nice!' on the post 'Best pasta sauce?'", home(), [
      ['click [3]', forum()],
      ['click [4]', postPage(first)],
      ['type [20] [Nice!] [0]', postPage(first, 'Nice!')],
      ['click [21]', postPage(commented)],
      ['stop [done]', postPage(commented), 1],
    ]),
  );
  return out;
}
