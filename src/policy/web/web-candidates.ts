import { words } from '../../core/text.ts';
import { isActionTemplate, type Observation } from '../../core/types.ts';
import { parseTree, prop, type TreeNode } from '../../envs/formats/web-tree.ts';

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
}

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

/** The concrete candidates of a web observation; non-web observations give their concrete actions. */
export function webCandidates(
  observation: Observation,
  options: WebCandidateOptions = {},
): WebCandidate[] {
  const tree = parseTree(observation.text);
  const nodes = tree?.nodes ?? [];
  const byId = new Map(nodes.map((node, index) => [node.id, index]));
  const out: WebCandidate[] = [];
  for (const action of observation.actions ?? []) {
    if (!isActionTemplate(action)) {
      const click = /^click \[([^\]]+)\]$/.exec(action);
      if (click) {
        const index = byId.get(click[1] as string);
        out.push({ action, context: index === undefined ? '' : describe(nodes, index) });
      } else if (KEEP.has(action)) out.push({ action, context: action });
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
      for (const value of values.slice(0, options.typeValues ?? 6)) {
        out.push({
          action: `type [${id}] [${value}] [1]`,
          context: `${field ? describe(nodes, index as number) : ''} ${value}`,
        });
      }
      continue;
    }
    if (action.startsWith('stop [')) {
      out.push({ action: 'stop []', context: 'stop no answer' });
      for (const answer of pageAnswers(nodes, observation.instruction).slice(
        0,
        options.answers ?? 60,
      )) {
        out.push({ action: `stop [${answer.text}]`, context: `stop ${answer.context}` });
      }
    }
  }
  return dedupe(out);
}

/** An element in words: its role and name, and a table cell's row header. */
function describe(nodes: readonly TreeNode[], index: number): string {
  const node = nodes[index] as TreeNode;
  const header = rowHeader(nodes, index);
  return [node.role, node.name ?? '', header ?? ''].join(' ').trim();
}

/** The row header of a cell: the `rowheader` sibling before it in the same row. */
function rowHeader(nodes: readonly TreeNode[], index: number): string | undefined {
  const node = nodes[index] as TreeNode;
  if (node.role !== 'cell' && node.role !== 'gridcell') return undefined;
  for (let i = index - 1; i >= 0; i--) {
    const other = nodes[i] as TreeNode;
    if (other.depth < node.depth) return undefined;
    if (other.depth === node.depth && other.role === 'rowheader') return other.name;
  }
  return undefined;
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
export function pageAnswers(nodes: readonly TreeNode[], instruction: string): Answer[] {
  const asked = new Set(words(instruction));
  const out: Answer[] = [];
  for (const [index, node] of nodes.entries()) {
    const value = prop(node, 'value');
    if (value && value.length <= 80) {
      out.push({ text: value, context: `${node.role} ${node.name ?? ''} ${value}` });
    }
    if (!node.name || node.role === 'RootWebArea' || node.role === 'button') continue;
    if (prop(node, 'url') !== undefined && node.role !== 'link') continue;
    const before = (nodes[index - 1]?.name ?? '').slice(-40);
    const after = (nodes[index + 1]?.name ?? '').slice(0, 40);
    const header = rowHeader(nodes, index);
    const around = `${header ?? ''} ${before} ${after}`;
    const fragments = node.name.split(/\s*[·|,]\s*(?:by\s+)?|\s+by\s+/);
    for (const fragment of new Set([node.name, ...fragments])) {
      const text = fragment.replace(/^f\//, '').trim();
      if (text.length === 0 || text.length > 80) continue;
      out.push({ text, context: `${node.role} ${around} ${fragment}` });
      for (const m of text.matchAll(PARTS)) {
        if (m[0] !== text) {
          const at = m.index as number;
          out.push({
            text: m[0] as string,
            context: `${node.role} ${header ?? ''} ${text.slice(Math.max(0, at - 30), at)} ${text.slice(at + m[0].length, at + m[0].length + 30)}`,
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

function dedupe(candidates: readonly WebCandidate[]): WebCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => !seen.has(c.action) && Boolean(seen.add(c.action)));
}
