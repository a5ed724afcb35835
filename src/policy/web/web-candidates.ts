import { words } from '../../core/text.ts';
import { isActionTemplate, type Observation } from '../../core/types.ts';
import { parseTree, prop, type TreeNode } from '../../envs/formats/web-tree.ts';
import { PageStructure } from './page-structure.ts';

/**
 * Candidate actions for a policy that chooses among concrete actions on a web page (WebArena's
 * accessibility-tree observation). The env lists `click [id]` for what can be clicked and
 * templates for free text (`type [id] [<text>]`, `stop [<answer>]`); this module turns the
 * templates into a few concrete texts, each with the words it refers to, so a policy can score
 * them like clicks:
 * - `type [id] [value] [1]` with values taken from the instruction (quoted titles, names, ids,
 *   numbers), or a select's option labels;
 * - `stop [answer]` with short texts from the page (cells, links, headings, fragments of
 *   sentences, and the numbers, dates and amounts inside them), each with the words around it
 *   (a table cell's row header, the text before a number) — plus `stop []` for tasks that need no
 *   answer.
 * Navigation the built-in tasks never need (`go_forward`, tabs, `press`, `goto`, `hover`) is left
 * out to keep the choice small. Only the observation is read: no task spec, no site code.
 */
export interface WebCandidate {
  action: string;
  /** What the action refers to on the page, in words (a policy hashes these). */
  context: string;
  /** `click`, `type`, `stop`, or `move` (scroll, go back). */
  verb: 'click' | 'type' | 'stop' | 'move';
  /** What it names: a click's element name, a typed value, an answer's text ('' for `stop []`). */
  name: string;
  /** A link's URL ('' for anything else). */
  url: string;
  /** The words of the item the element or answer is in (a post, a row, a comment; see PageStructure). */
  block: string;
  /** Words right around an answer: its row and column headers, the text just before and after. */
  near: string;
  /** `type`: the field's label and its current value. */
  field?: { label: string; value: string };
  /** `click` on a button of a form with fields (a form's submit, not the search box's). */
  submits?: boolean;
}

/** How many values to propose per text field and how many answers for `stop`. */
export interface WebCandidateOptions {
  /** Values proposed per text field. Default 6. */
  typeValues?: number;
  /** Answers proposed for `stop`. Default 60. */
  answers?: number;
}

const KEEP = new Set(['scroll [down]', 'go_back']);
const TYPE_TEMPLATE = /^type \[([^\]]+)\] \[<[^>]*>\]$/;

/** True for a web page observation (WebArena's tree text with its `stop [<answer>]` action). */
export function isWebObservation(observation: Observation): boolean {
  return (
    (observation.actions ?? []).some((a) => a.startsWith('stop [')) &&
    /^URL: /m.test(observation.text)
  );
}

/**
 * The kind of a web page for a policy's features: its URL's host and path with numbers and ids
 * replaced (`store.test/admin/products/N`), so pages of one kind share what is learnt about them.
 */
export function webPageKind(text: string): string {
  const url = /^URL: (\S+)/m.exec(text)?.[1];
  if (!url) return 'page';
  try {
    const { host, pathname } = new URL(url);
    return `${host}${pathname.replace(/\/\d+(?=\/|$)/g, '/N').replace(/\/$/, '')}`;
  } catch {
    return 'page';
  }
}

/** Candidates with the default options, by observation: a policy's step reads them twice. */
const memo = new WeakMap<Observation, readonly WebCandidate[]>();

/**
 * The concrete candidates of a web observation; non-web observations give their concrete actions.
 * With the default options the list is computed once per observation object and shared: do not
 * change it.
 */
export function webCandidates(
  observation: Observation,
  options: WebCandidateOptions = {},
): readonly WebCandidate[] {
  const defaults = options.typeValues === undefined && options.answers === undefined;
  const known = defaults ? memo.get(observation) : undefined;
  if (known) return known;
  const out = candidatesOf(observation, options);
  if (defaults) memo.set(observation, out);
  return out;
}

function candidatesOf(observation: Observation, options: WebCandidateOptions): WebCandidate[] {
  const nodes = parseTree(observation.text)?.nodes ?? [];
  const page = new PageStructure(nodes);
  const byId = new Map(nodes.map((node, index) => [node.id, index]));
  const out: WebCandidate[] = [];
  const none = { name: '', url: '', block: '', near: '' };
  for (const action of observation.actions ?? []) {
    if (!isActionTemplate(action)) {
      const click = /^click \[([^\]]+)\]$/.exec(action);
      if (click) {
        const index = byId.get(click[1] as string);
        if (index === undefined) {
          out.push({ action, context: '', verb: 'click', ...none });
          continue;
        }
        const node = nodes[index] as TreeNode;
        const form = page.form(index);
        out.push({
          action,
          context: describe(page, index),
          verb: 'click',
          name: node.name ?? '',
          url: prop(node, 'url') ?? '',
          block: page.blockText(index),
          near: '',
          submits:
            node.role === 'button' &&
            form >= 0 &&
            page.fields(form).some((f) => (nodes[f] as TreeNode).role !== 'searchbox'),
        });
      } else if (KEEP.has(action)) out.push({ action, context: action, verb: 'move', ...none });
      continue;
    }
    const type = TYPE_TEMPLATE.exec(action);
    if (type) {
      const id = type[1] as string;
      const index = byId.get(id);
      const field = index === undefined ? undefined : nodes[index];
      const values =
        field?.role === 'combobox'
          ? optionLabels(nodes, index as number)
          : typeValues(observation.instruction);
      const enter = index === undefined || submitsOnEnter(page, index) ? 1 : 0;
      for (const value of values.slice(0, options.typeValues ?? 6)) {
        out.push({
          action: `type [${id}] [${value}] [${enter}]`,
          context: `${field ? describe(page, index as number) : ''} ${value}`,
          verb: 'type',
          name: value,
          url: '',
          block: index === undefined ? '' : page.blockText(index),
          near: '',
          field: {
            label: field?.name ?? '',
            value: field ? (prop(field, 'value') ?? '') : '',
          },
        });
      }
      continue;
    }
    if (action.startsWith('stop [')) {
      out.push({ action: 'stop []', context: 'stop no answer', verb: 'stop', ...none });
      for (const answer of pageAnswers(page, observation.instruction).slice(
        0,
        options.answers ?? 60,
      )) {
        out.push({
          action: `stop [${answer.text}]`,
          context: `stop ${answer.context}`,
          verb: 'stop',
          name: answer.text,
          url: '',
          block: answer.block,
          near: answer.near,
        });
      }
    }
  }
  return dedupe(out);
}

/**
 * Whether typing into the field should press Enter (`[1]`): a search box, or the only field of
 * its form (a grid's filter, a one-field search); in a form with several fields the text goes in
 * with `[0]` and the form's button submits it, as a person fills a form.
 */
function submitsOnEnter(page: PageStructure, index: number): boolean {
  if ((page.nodes[index] as TreeNode).role === 'searchbox') return true;
  const form = page.form(index);
  return form < 0 || page.fields(form).length <= 1;
}

/** An element in words: its role and name, and a table cell's headers. */
function describe(page: PageStructure, index: number): string {
  const node = page.nodes[index] as TreeNode;
  const { row, column } = page.headers(index);
  return [node.role, node.name ?? '', row, column].join(' ').trim();
}

/** A select's option labels, in order. */
function optionLabels(nodes: readonly TreeNode[], index: number): string[] {
  const depth = (nodes[index] as TreeNode).depth;
  const labels: string[] = [];
  for (let i = index + 1; i < nodes.length && (nodes[i] as TreeNode).depth > depth; i++) {
    const node = nodes[i] as TreeNode;
    if (node.role === 'option' && node.name) labels.push(node.name);
  }
  return labels;
}

/** Sentence-initial words that are not part of a name ("Is Willow Trowel enabled?"). */
const LEADING_WORDS =
  /^(?:(?:What|Who|Whom|How|Which|When|Where|Why|Is|Are|Was|Does|Did|Do|Set|Find|Tell|Count|Name|Give|Show|Check|In|On|For|The|Change|Update|Mark|Make|Open|Go)\s+)+/;

/**
 * Texts worth typing, from the instruction: quoted spans, identifiers (`sable_gecko`,
 * `OUT-6679`, `#000000127`), capitalised names, numbers and amounts, `f/forum` names; most
 * specific first.
 */
export function typeValues(instruction: string): string[] {
  const values: string[] = [];
  for (const m of instruction.matchAll(/["“']([^"”']{2,80})["”']/g)) values.push(m[1] as string);
  for (const m of instruction.matchAll(/#?\b[\w.-]*(?:_|\d)[\w.-]*\b/g)) {
    const token = (m[0] as string).replace(/^#/, '').replace(/\.$/, '');
    if (token.length >= 3 && !/^\d{1,2}$/.test(token)) values.push(token);
  }
  for (const m of instruction.matchAll(/\b(?:[A-Z][\w'-]*)(?: [A-Z][\w'-]*)+/g)) {
    const name = (m[0] as string).replace(LEADING_WORDS, '').replace(/'s$/, '').trim();
    if (name.includes(' ')) values.push(name);
  }
  for (const m of instruction.matchAll(/\bf\/([a-z0-9_]+)/gi)) values.push(m[1] as string);
  for (const m of instruction.matchAll(/\$\s?(\d[\d,]*(?:\.\d+)?)/g)) values.push(m[1] as string);
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length > 1))];
}

const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'in',
  'on',
  'is',
  'was',
  'what',
  'how',
  'many',
  'to',
  'by',
  'for',
  'and',
  'or',
  'does',
  'did',
]);

interface Answer {
  text: string;
  context: string;
  block: string;
  near: string;
}

/** A fragment of text worth answering with: a number, date, amount or short phrase. */
const PARTS =
  /\$[\d,]+(?:\.\d+)?|\b\d{4}-\d{2}-\d{2}\b|\b[A-Z][a-z]{2} \d{1,2}, \d{4}\b|\b\d[\d,]*(?:\.\d+)?\b/g;

/**
 * Short texts of the page an answer could be, each with the words around it: names of cells,
 * links, headings and static texts (split at `·` and commas), and the numbers, dates and amounts
 * inside longer ones. Texts the instruction already contains come last (an answer is rarely the
 * question's own words).
 */
export function pageAnswers(page: PageStructure, instruction: string): Answer[] {
  const { nodes } = page;
  const asked = new Set(words(instruction));
  const out: Answer[] = [];
  for (const [index, node] of nodes.entries()) {
    const block = page.blockText(index);
    const value = prop(node, 'value');
    if (value && value.length <= 80) {
      out.push({
        text: value,
        context: `${node.role} ${node.name ?? ''} ${value}`,
        block,
        near: node.name ?? '',
      });
    }
    if (!node.name || node.role === 'RootWebArea' || node.role === 'button') continue;
    if (prop(node, 'url') !== undefined && node.role !== 'link') continue;
    const before = (nodes[index - 1]?.name ?? '').slice(-40);
    const after = (nodes[index + 1]?.name ?? '').slice(0, 40);
    const { row, column } = page.headers(index);
    const headers = `${row} ${column}`.trim();
    const around = `${headers} ${before} ${after}`;
    const fragments = node.name.split(/\s*[·|,]\s*(?:by\s+)?|\s+by\s+/);
    for (const fragment of new Set([node.name, ...fragments])) {
      const text = fragment.replace(/^f\//, '').trim();
      if (text.length === 0 || text.length > 80) continue;
      const rest = fragment === node.name ? '' : node.name.replace(fragment, ' ');
      out.push({
        text,
        context: `${node.role} ${around} ${fragment}`,
        block,
        near: `${headers} ${before.slice(-20)} ${rest.slice(0, 40)} ${after.slice(0, 20)}`,
      });
      for (const m of text.matchAll(PARTS)) {
        if (m[0] !== text) {
          const at = m.index as number;
          const beside = besideIn(text, at, at + m[0].length);
          out.push({
            text: m[0] as string,
            context: `${node.role} ${headers} ${beside}`,
            block,
            near: `${headers} ${beside}`,
          });
        }
      }
    }
  }
  // Most relevant first: texts the question does not already contain, then by how many of the
  // question's words their surroundings share (a row labelled with the asked month, say).
  const rank = (a: Answer) =>
    (words(a.text).some((w) => !asked.has(w)) ? 1000 : 0) +
    words(a.context).filter((w) => asked.has(w) && !STOP.has(w)).length;
  // "enabled or disabled?": the answer is one of the two, which the question itself names.
  const either = /\b(\w+) or (\w+)\?/i.exec(instruction);
  const choices = either ? [either[1] as string, either[2] as string] : [];
  const named = (a: Answer) =>
    choices.some((c) => c.toLowerCase() === a.text.toLowerCase()) ? 2000 : 0;
  return out
    .map((answer, order) => ({ answer, order, score: named(answer) + rank(answer) }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map((x) => x.answer);
}

/** The two words on either side of `text[start, end)`, within its `·`, `|` or comma-separated part. */
function besideIn(text: string, start: number, end: number): string {
  const before = text.slice(0, start).split(/[·|,]/).at(-1) ?? '';
  const after = text.slice(end).split(/[·|,]/)[0] ?? '';
  return `${words(before).slice(-2).join(' ')} ${words(after).slice(0, 2).join(' ')}`;
}

function dedupe(candidates: readonly WebCandidate[]): WebCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => !seen.has(c.action) && Boolean(seen.add(c.action)));
}
