/**
 * What the LLM experience model is told about an env family: the action syntax, what states look
 * like and how rewards work. Only public knowledge (the WebShop and ALFWorld papers' page formats,
 * command grammars and reward rules), never a real env's hidden state, catalog or code: the
 * specifics of an episode come from the retrieved demonstrations.
 */

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

export const GENERIC_DESCRIPTION = `A text environment. The state is the text the environment shows the agent; the agent acts with short text commands. Where the environment knows them, the admissible actions are listed with each state; a free-text action is listed as a template with a <placeholder>, e.g. search[<query>].
The demonstrations show this environment's real text format, how actions change states and when rewards come: follow them closely.
Reward: usually 0 until the task is completed or the episode ends, when it measures how well the task was done.`;

/** Built-in descriptions by env family; `agentgym:webshop` and `agentgym:alfworld` included. */
const DESCRIPTIONS: ReadonlyArray<[RegExp, string]> = [
  [/webshop/i, WEBSHOP_DESCRIPTION],
  [/household|alfworld/i, HOUSEHOLD_DESCRIPTION],
];

/** The built-in description for an env family, or the generic one for families we do not know. */
export function envDescriptionFor(env: string): string {
  return DESCRIPTIONS.find(([family]) => family.test(env))?.[1] ?? GENERIC_DESCRIPTION;
}
