import type { Observation } from '../../core/types.ts';
import {
  isFocused,
  nodeById,
  parseTree,
  subtree,
  type TreeNode,
  type WebTree,
} from '../../envs/formats/web-tree.ts';
import { parseWebAction } from './actions.ts';

/** Stands for the typed text in a learnt name. */
const VALUE = '\u0000';

/** A node that typing adds under the field (the shown value), its name a template. */
interface InsertedChild {
  role: string;
  name: string | undefined;
  props: Array<[string, string]>;
  depthOffset: number;
  id: string;
}

/**
 * How typing into a text field changes the tree, learnt from a real `type [id] [text] [0]` step:
 * the field's properties and name afterwards, the nodes that show the value, and whether other
 * elements lose focus. Applied to another field with another text, it predicts the tree the env
 * would show, with the ids of the page unchanged.
 */
export interface TypingEffect {
  /** Properties typing set on the field, each with its place in the field's property list. */
  props: Array<{ key: string; value: string; at: number }>;
  /** The field's name after typing: `keep`, or a template in which {@link VALUE} is the text. */
  name: 'keep' | string;
  children: InsertedChild[];
  /** Other elements lose `focused`. */
  blurOthers: boolean;
  /** Where it was learnt: `buffer` or `default` (WebArena's look: focus and a StaticText child). */
  source: 'buffer' | 'default';
}

/**
 * The effect assumed before any typing was seen: the field shows the text as its `value`
 * property and has the focus (the browser env prints values; WebArena's own trees do not).
 */
export const DEFAULT_TYPING: TypingEffect = {
  props: [
    { key: 'value', value: VALUE, at: 0 },
    { key: 'focused', value: 'True', at: 1 },
  ],
  name: 'keep',
  children: [],
  blurOthers: true,
  source: 'default',
};

/** The typing effect one real transition shows, or undefined when it shows none. */
export function learnTyping(
  state: Observation,
  action: string,
  next: Observation,
): TypingEffect | undefined {
  const parsed = parseWebAction(action);
  if (parsed?.kind !== 'type' || parsed.enter || parsed.text.length < 2) return undefined;
  const before = parseTree(state.text);
  const after = parseTree(next.text);
  if (!before || !after || before.url !== after.url) return undefined;
  const field = nodeById(after, parsed.id);
  if (!field || !nodeById(before, parsed.id)) return undefined;
  const template = (name: string | undefined) =>
    name?.includes(parsed.text) ? name.replaceAll(parsed.text, VALUE) : name;
  const known = new Set(before.nodes.map((n) => n.id));
  const at = after.nodes.indexOf(field);
  const [start, end] = subtree(after.nodes, at);
  const children = after.nodes
    .slice(start + 1, end)
    .filter((n) => !known.has(n.id))
    .map((n) => ({
      role: n.role,
      name: template(n.name),
      props: n.props,
      depthOffset: n.depth - field.depth,
      id: n.id,
    }));
  const old = nodeById(before, parsed.id) as TreeNode;
  const props = field.props.flatMap(([key, value], at) =>
    old.props.some(([k, v]) => k === key && v === value)
      ? []
      : [{ key, value: template(value) as string, at }],
  );
  const wasFocused = before.nodes.filter((n) => n.id !== parsed.id && isFocused(n));
  return {
    props,
    name: field.name === old.name ? 'keep' : (template(field.name) ?? ''),
    children,
    blurOthers: wasFocused.some((n) => {
      const later = nodeById(after, n.id);
      return later !== undefined && !isFocused(later);
    }),
    source: 'buffer',
  };
}

/**
 * The tree after typing `text` into field `id` (replacing what it showed): the learnt effect
 * applied to this field. New nodes keep the id the real step gave them when it is free here,
 * else take the next number after the page's largest id.
 */
export function applyTyping(
  tree: WebTree,
  id: string,
  text: string,
  effect: TypingEffect,
): WebTree {
  const at = tree.nodes.findIndex((n) => n.id === id);
  const field = tree.nodes[at] as TreeNode;
  const [start, end] = subtree(tree.nodes, at);
  const fill = (name: string | undefined) => name?.replaceAll(VALUE, text);
  const used = new Set(tree.nodes.map((n) => n.id));
  let nextId = Math.max(0, ...tree.nodes.map((n) => Number(n.id)).filter(Number.isFinite)) + 1;
  const freshId = (wanted: string) => {
    if (wanted && !used.has(wanted)) return wanted;
    while (used.has(String(nextId))) nextId++;
    return String(nextId++);
  };
  // The field's old value is replaced: its shown-value children go, other children stay.
  const kept = tree.nodes.slice(start + 1, end).filter((n) => n.role !== 'StaticText');
  for (const n of tree.nodes.slice(start + 1, end)) if (n.role === 'StaticText') used.delete(n.id);
  const inserted = effect.children.map((c) => {
    const node: TreeNode = {
      id: freshId(c.id),
      role: c.role,
      name: fill(c.name),
      props: c.props,
      depth: field.depth + c.depthOffset,
    };
    used.add(node.id);
    return node;
  });
  const typed: TreeNode = {
    ...field,
    name: effect.name === 'keep' ? field.name : fill(effect.name),
    props: mergeProps(field.props, effect.props, text),
  };
  const blur = (n: TreeNode): TreeNode =>
    effect.blurOthers && isFocused(n)
      ? { ...n, props: n.props.filter(([k]) => k !== 'focused') }
      : n;
  return {
    ...tree,
    nodes: [
      ...tree.nodes.slice(0, start).map(blur),
      typed,
      ...inserted,
      ...kept,
      ...tree.nodes.slice(end).map(blur),
    ],
  };
}

/** The field's own properties with the learnt ones set, each at its learnt place. */
function mergeProps(
  own: ReadonlyArray<[string, string]>,
  learnt: TypingEffect['props'],
  text: string,
): Array<[string, string]> {
  const keys = new Set(learnt.map((p) => p.key));
  const props = own.filter(([k]) => !keys.has(k));
  for (const { key, value, at } of learnt)
    props.splice(Math.min(at, props.length), 0, [key, value.replaceAll(VALUE, text)]);
  return props;
}
