/**
 * An episode's first observation from real episode starts of similar tasks. Three ways, cheapest
 * first:
 * 1. the buffer holds a start of this very task: that is its first observation;
 * 2. the env family's starts are a template with the instruction inside (WebShop's search page is
 *    the same page around every instruction): substitute this task's instruction, no LLM call;
 * 3. otherwise (ALFWorld rooms differ from task to task) the LLM writes one, shown the starts.
 * A template is trusted only when every start seen of the family is the same page around its own
 * instruction, for at least {@link TEMPLATE_EVIDENCE} instructions: one start cannot tell a fixed
 * page from a scene that quotes its task, and a few tasks may share a room (up to 16 of 2,000
 * household tasks do). A single disagreeing start rules the template out for good. Starts are
 * remembered across calls: each reset retrieves only a few transitions, not all of them starts.
 */
import type { Observation, Task } from '../../core/types.ts';
import type { ChatMessage } from '../../llm/client.ts';
import type { RetrievedTransition } from '../../replay/stored-transition.ts';
import { envDescriptionFor } from './env-descriptions.ts';
import { actionList, clip, type ResolvedPromptOptions, taskSection } from './prompt.ts';

const SLOT = '\u0000';

/** Distinct instructions whose starts must agree before a template is trusted. */
export const TEMPLATE_EVIDENCE = 3;

/** What the starts seen of one env family say: the pages around their instructions. */
interface Family {
  templates: Set<string>;
  instructions: Set<string>;
}

/** The first observations that need no LLM, learnt from the real episode starts seen so far. */
export class StartTemplates {
  private readonly families = new Map<string, Family>();

  /** Learns from `starts` (t = 0), then gives `task`'s first observation if they settle it. */
  known(task: Task, starts: readonly RetrievedTransition[]): Observation | undefined {
    for (const start of starts) this.learn(start);
    const same = starts.find(
      (s) => s.task.id === task.id && s.task.instruction === task.instruction,
    );
    if (same)
      return { ...same.state, ...(same.state.actions && { actions: [...same.state.actions] }) };
    return this.fill(task);
  }

  private learn({ task, state }: RetrievedTransition): void {
    let family = this.families.get(task.env);
    if (!family) {
      family = { templates: new Set(), instructions: new Set() };
      this.families.set(task.env, family);
    }
    // Two pages already disagree: the family has no template, and nothing more is worth keeping.
    if (family.templates.size > 1) return;
    const cut = (s: string) => (task.instruction ? s.replaceAll(task.instruction, SLOT) : s);
    family.templates.add(
      JSON.stringify({ text: cut(state.text), actions: state.actions?.map(cut) }),
    );
    family.instructions.add(task.instruction);
  }

  private fill(task: Task): Observation | undefined {
    const family = this.families.get(task.env);
    if (family?.templates.size !== 1 || family.instructions.size < TEMPLATE_EVIDENCE)
      return undefined;
    const [template] = [...family.templates] as [string];
    const { text, actions } = JSON.parse(template) as { text: string; actions?: string[] };
    const put = (s: string) => s.replaceAll(SLOT, task.instruction);
    const observation: Observation = { text: put(text), instruction: task.instruction };
    if (actions) observation.actions = actions.map(put);
    return observation;
  }
}

const INITIAL_SYSTEM_PROMPT = `You are the experience model of a text environment: you simulate the environment, not the agent. You write the first observation of a new episode of the given task: exactly the text the environment shows when the episode starts, and the actions admissible in it. The first observations of real episodes of similar tasks are shown as examples: keep their format exactly, and make the new observation fit the new task (what the task needs must be possible in it).

Reason step by step first, then answer with one JSON object and nothing else:
{"reasoning": "<your step-by-step reasoning>", "state": {"text": "<the full first observation>", "actions": ["<admissible action>", "…"]}}`;

/** The messages asking the LLM for a task's first observation. */
export function initialMessages(
  task: Task,
  starts: readonly RetrievedTransition[],
  options: ResolvedPromptOptions,
): ChatMessage[] {
  const description = options.envDescription ?? envDescriptionFor(task.env);
  const examples =
    starts.length === 0
      ? '## First observations of similar tasks\n(none recorded: rely on the description of the environment)'
      : [
          '## First observations of real episodes of similar tasks',
          ...starts.map((s, i) =>
            [
              `### Example ${i + 1} (task: ${clip(s.task.instruction, 300)})`,
              clip(s.state.text, options.limits.demonstration),
              ...(s.state.actions
                ? [
                    `Admissible actions: ${actionList(s.state.actions, options.limits.demonstrationActions)}`,
                  ]
                : []),
            ].join('\n'),
          ),
        ].join('\n');
  return [
    {
      role: 'system',
      content: `${INITIAL_SYSTEM_PROMPT}\n\n## The environment\n${description}`,
    },
    {
      role: 'user',
      content: `${taskSection(task)}\n\n${examples}\n\nWrite the first observation of an episode of this task. Reason step by step first, then answer with the JSON object.`,
    },
  ];
}
