/**
 * What the LLM experience model is told about an env family: the action syntax, what states look
 * like and how rewards work. Only public knowledge (the WebShop and ALFWorld papers' page formats,
 * command grammars and reward rules; WebArena's tree format, actions and evaluation), never a real env's hidden state, catalog or code: the
 * specifics of an episode come from the retrieved demonstrations. An env of no known family is
 * described from what its real episodes in the buffer show ({@link describeFromTrajectories}).
 */
import { isSuccess, type Step, type Trajectory } from '../../core/types.ts';
import type { ReplayBuffer } from '../../replay/replay-buffer.ts';
import { ActionGrammar } from '../generic/action-grammar.ts';

export const WEBSHOP_DESCRIPTION = `A text-mode web shop (after WebShop). The agent shops for a product matching the instruction.
Actions: search[<query>] on a page that shows [Search]; click[<label>] for any bracketed label the page shows, e.g. click[Next >], click[B0ABC12345], click[red], click[Buy Now].
Pages (one bracketed button per line):
- Search page: "WebShop", "Instruction:", the instruction, "[Search]". Its only action is search[<query>].
- Results page, after a search: "[Back to Search]", "Page N (Total results: M)", "[< Prev]" after page 1, "[Next >]" while more results follow, then up to 10 results, each "[ASIN]" (B0 followed by 8 letters or digits), the product title and "$price". Results match the query's words; the same query always gives the same results.
- Item page, after clicking an ASIN: "[Back to Search]", "[< Prev]", one line per option group ("size [s][m][l]"), the title, "Price: $…", "Rating: N.A.", "[Description]", "[Features]", "[Buy Now]".
- Clicking an option shows the item page again, preceded by "You have clicked <option>.".
- [Description] / [Features] show "[Back to Search]", "[< Prev]" and that text; [< Prev] goes back one page; [Back to Search] returns to the search page.
- [Buy Now] ends the episode (terminated): "Thank you for shopping with us!" and "Your score (min 0.0, max 1.0): <score>" with the score to 4 decimals; no actions follow.
Reward: 0 on every step except [Buy Now], whose reward is the score: the share of the instruction's wanted attributes, options (as selected) and budget ("price lower than X dollars") that the bought product meets, scaled down when the product is not the requested type. A product that meets everything scores 1.`;

export const HOUSEHOLD_DESCRIPTION = `A text household (after ALFWorld). The agent is in a room with numbered receptacles (cabinet 1, fridge 1, countertop 2, …) and numbered objects (apple 2, mug 1, …) and must reach the goal of the instruction: put an object somewhere, two of them, look at one under a lamp, or clean (sink basin), heat (microwave) or cool (fridge) one and then put it somewhere.
Actions (ALFWorld's commands): go to <receptacle>; open <receptacle>; close <receptacle>; take <object> from <receptacle>; move <object> to <receptacle>; heat/cool/clean <object> with <receptacle>; slice <object> with <object>; use <lamp>; examine <thing>; inventory; look. The agent holds at most one object.
States are ALFWorld's text, word for word. The first one: "You are in the middle of a room. Looking quickly around you, you see a cabinet 2, a cabinet 1, …, and a toaster 1." then a blank line and "Your task is to: <instruction>". After each command, its reply, e.g. "You arrive at cabinet 1. The cabinet 1 is closed.", "You arrive at countertop 1. On the countertop 1, you see a apple 2, and a knife 1.", "You open the fridge 1. The fridge 1 is open. In it, you see a egg 2, and a mug 1.", "You pick up the apple 2 from the countertop 1.", "You move the apple 2 to the fridge 1.", "You heat the apple 2 using the microwave 1.", "You turn on the desklamp 1.", "You are carrying: a apple 2.", "Nothing happens." (a command with no effect). Every name takes "a", lists end with ", and", things are listed by type, higher numbers first. Objects stay where they were put; closed receptacles do not show their contents.
The admissible actions are the commands that make sense in the state (go to every receptacle, open/close where the agent is, take what lies there, …), listed with each state.
Reward: 1 on the step that completes the goal, which ends the episode (terminated); 0 on every other step.`;

export const WEB_DESCRIPTION = `Real web sites in a browser (after WebArena). The agent completes the instruction on the sites: finds information and answers it, or changes something (posts, edits, settings).
States are WebArena's accessibility-tree text. First the open tabs on one line, "Tab 0 (current): <page title> | Tab 1: <title>", then "URL: <current URL>" (after a failed navigation also "Error: <what happened>"), a blank line, then the page: one element a line, "[id] role 'name' property: value …", indented with one tab per level of depth, e.g.
[1] RootWebArea 'Cooking' focused: True
\t[7] link 'Home'
\t[12] heading 'Cooking'
\t[15] searchbox 'Search' required: False
\t[20] link 'Best pasta sauce?'
\t\t[21] StaticText '12 comments'
Names are quoted as Python's repr quotes strings. Properties include focused: True, required: False, checked: true, expanded: False, disabled: True, value: <text typed in a field or option chosen>. The id is a number the page view gives each element: the same page content always shows the same ids, an element keeps its id while the page stays loaded, and a newly loaded page numbers its elements again from 1 in line order. The root line is the page title's RootWebArea.
Actions (WebArena's): click [id]; type [id] [text] [1] (types the text into a field, replacing what it held, then presses Enter; [0] types without Enter); hover [id]; press [key_comb] (e.g. press [Enter], press [Control+a]); scroll [down] / scroll [up]; new_tab; tab_focus [i]; close_tab; goto [url]; go_back; go_forward; stop [answer] (ends the episode; the answer is empty when the task asks for no information).
How pages change:
- Clicking a link loads the page it leads to: a new URL, a new tab title, a new tree. Clicking a button or pressing Enter in a field submits its form: the site answers with a page (search results for the query, the post or item just created or saved, a message such as "Saved"); the values sent appear on that page where the site shows them.
- Typing without Enter changes only the field: it shows the text as its value (value: <text>) and takes the focus; the rest of the page and the URL stay.
- Clicking a checkbox, radio button, tab or menu changes that element in place (checked, selected, expanded). Scrolling and hovering rarely change the text.
- go_back / go_forward show the tab's previous / next page again; goto loads the URL; a page revisited shows the same content unless a submission changed it (a changed page stays changed).
- An action on an id the page does not show changes nothing.
Long pages are cut in this prompt: a line "[… N lines cut …]" stands for lines not shown. Write the next state in full in the same format for every part you know; leave out lines you cannot know, and never write the cut marker itself.
The admissible actions listed with each state are: "click [id]" for every link, button and other control; "type [id] [<text>]" for every text field; then "scroll [down]", "scroll [up]", "go_back", "go_forward", "new_tab", "tab_focus [i]" for other tabs, "close_tab" when several tabs are open, "press [<key_comb>]", "goto [<url>]", "stop [<answer>]".
Reward: 0 on every step except stop, which ends the episode (terminated): 1 when the task was done (the answer holds the requested information, or the sites now show the requested change), else 0.`;

export const GENERIC_DESCRIPTION = `A text environment. The state is the text the environment shows the agent; the agent acts with short text commands. Where the environment knows them, the admissible actions are listed with each state; a free-text action is listed as a template with a <placeholder>, e.g. search[<query>].
The demonstrations show this environment's real text format, how actions change states and when rewards come: follow them closely.
Reward: usually 0 until the task is completed or the episode ends, when it measures how well the task was done.`;

/** Built-in descriptions by env family; `agentgym:webshop` and `agentgym:alfworld` included. */
const DESCRIPTIONS: ReadonlyArray<[RegExp, string]> = [
  [/^(web:|webarena)/i, WEB_DESCRIPTION],
  [/webshop/i, WEBSHOP_DESCRIPTION],
  [/household|alfworld/i, HOUSEHOLD_DESCRIPTION],
];

/** The built-in description for an env family, or the generic one for families we do not know. */
export function envDescriptionFor(env: string): string {
  return DESCRIPTIONS.find(([family]) => family.test(env))?.[1] ?? GENERIC_DESCRIPTION;
}

/** What {@link describeFromTrajectories} adds to what the buffer shows. */
export interface BufferDescriptionOptions {
  /** The env's own one-line description (its registry entry's), shown first when there is one. */
  summary?: string;
  /** Tool signatures (an MCP server's, say), listed as they are. */
  tools?: readonly string[];
  /** Example states shown, at most. Default 3. */
  examples?: number;
  /** Action templates listed, at most. Default 20. */
  templates?: number;
}

/** Characters of one example state quoted in a description, at most. */
const EXAMPLE_CHARS = 700;

/**
 * The description of an env nobody described, from its real episodes alone: the action
 * templates the episodes used (with an example of each and how often it ended an episode),
 * example states (a start and the answers of the commonest actions), and how rewards behaved
 * (when they came, which actions ended episodes and how often with reward 1, what a refused
 * action did). The LLM experience model is given it where `envDescriptionFor` knows no family.
 */
export function describeFromTrajectories(
  trajectories: readonly Trajectory[],
  options: BufferDescriptionOptions = {},
): string {
  const real = trajectories.filter((t) => t.provenance !== 'synthetic');
  const grammar = ActionGrammar.learn(real.flatMap((t) => t.steps.map((s) => s.action)));
  const byTemplate = new Map<
    string,
    { taken: number; ended: number; won: number; example: Step; state: string }
  >();
  let refused = 0;
  let refusedEnded = 0;
  let stepRewards = 0;
  let steps = 0;
  for (const t of real) {
    t.steps.forEach((step, i) => {
      steps++;
      if (step.info?.invalidAction !== undefined) {
        refused++;
        if (step.terminated) refusedEnded++;
        return;
      }
      if (!step.terminated && step.reward !== 0) stepRewards++;
      const { template } = grammar.parse(step.action);
      const state = i === 0 ? t.initial.text : (t.steps[i - 1] as Step).observation.text;
      const entry = byTemplate.get(template) ?? {
        taken: 0,
        ended: 0,
        won: 0,
        example: step,
        state,
      };
      entry.taken++;
      if (step.terminated) entry.ended++;
      if (step.terminated && step.reward >= 1) entry.won++;
      byTemplate.set(template, entry);
    });
  }
  const templates = [...byTemplate].sort((a, b) => b[1].taken - a[1].taken);
  const ended = real.filter((t) => t.steps.at(-1)?.terminated).length;
  const won = real.filter(isSuccess).length;
  const lists = real.some((t) => t.initial.actions !== undefined);
  const parts = [
    `A text environment known from ${real.length} recorded real episodes (${steps} steps)${options.summary ? `: ${options.summary}` : ''}.`,
    ...(options.tools?.length ? [`Tools:\n${options.tools.map((t) => `- ${t}`).join('\n')}`] : []),
    `Actions, as templates whose <n> slots the episodes filled (commonest first):\n${templates
      .slice(0, options.templates ?? 20)
      .map(
        ([template, e]) =>
          `- ${template}, e.g. ${e.example.action} (taken ${e.taken} times${e.ended > 0 ? `; ended the episode ${e.ended} times, ${e.won} of them with reward 1` : ''})`,
      )
      .join('\n')}`,
    lists
      ? 'Each state lists its admissible actions; a free-text action is listed as a template with a <placeholder>. Actions name the ids, names and values the episode has shown.'
      : 'States do not list admissible actions.',
    `Example states, word for word:\n${exampleStates(real, templates, options.examples ?? 3)}`,
    `Rewards: ${stepRewards === 0 ? 'every step that did not end an episode earned 0' : `${stepRewards} steps earned a reward without ending the episode`}; ${ended} of ${real.length} episodes ended by the environment's own rules, ${won} of them with reward 1 (a success), the rest cut off by the step limit.`,
    refused > 0
      ? `Refused actions: ${refused} steps were refused (not admissible): the state stayed as it was and the reward was 0${refusedEnded > 0 ? `; ${refusedEnded} of them ended the episode` : ''}.`
      : 'No action was refused in the recorded episodes.',
  ];
  return parts.join('\n');
}

/** A start state, then the answers of the commonest actions, each quoted once and clipped. */
function exampleStates(
  trajectories: readonly Trajectory[],
  templates: ReadonlyArray<[string, { example: Step; state: string }]>,
  count: number,
): string {
  const clipped = (text: string) =>
    text.length > EXAMPLE_CHARS ? `${text.slice(0, EXAMPLE_CHARS)} [… cut …]` : text;
  const start = trajectories[0]?.initial.text;
  const shown: string[] =
    start === undefined ? [] : [`At the start of an episode:\n${clipped(start)}`];
  for (const [, { example }] of templates) {
    if (shown.length >= count) break;
    shown.push(`After ${example.action}:\n${clipped(example.observation.text)}`);
  }
  return shown.join('\n\n');
}

/**
 * {@link describeFromTrajectories} over the buffer's real episodes of `env` (at most `limit`,
 * the oldest first); undefined when the buffer has none.
 */
export async function envDescriptionFromBuffer(
  env: string,
  buffer: ReplayBuffer,
  { limit = 500, ...options }: BufferDescriptionOptions & { limit?: number } = {},
): Promise<string | undefined> {
  const found: Trajectory[] = [];
  for await (const t of buffer.trajectories({ env, provenance: ['real-offline', 'real-online'] })) {
    found.push(t);
    if (found.length >= limit) break;
  }
  return found.length === 0 ? undefined : describeFromTrajectories(found, options);
}

/** True when {@link envDescriptionFor} has a description of the family's own. */
export function hasBuiltInDescription(env: string): boolean {
  return DESCRIPTIONS.some(([family]) => family.test(env));
}
