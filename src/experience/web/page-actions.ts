import type { WebTree } from '../../envs/formats/web-tree.ts';

const ID_ACTION = /^(?:click|hover|type) ?\[([^\]\s]+)\]/;

/** The element id an admissible action names (`click [7]` → `7`), or undefined. */
export function actionElement(action: string): string | undefined {
  return ID_ACTION.exec(action)?.[1];
}

/**
 * The admissible actions of a predicted page, in the env's layout: grouped by verb in the order
 * `template` (the seen page the prediction came from) lists them (the browser env: every click,
 * then every type), each group in tree order, an element taking the actions `template` listed for
 * it or, when it had none there, those the env lists for its role (`roleActions`, learnt from the
 * buffer); then the page-independent actions (`scroll [down]`, `go_back`, `stop [<answer>]` …)
 * from `fixedFrom`, placed first or last as `template` places them.
 */
export function composeActions(
  tree: WebTree,
  template: readonly string[],
  fixedFrom: readonly string[],
  roleActions: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const byElement = new Map<string, string[]>();
  for (const action of template) {
    const id = actionElement(action);
    if (id === undefined) continue;
    const list = byElement.get(id) ?? [];
    list.push(action);
    byElement.set(id, list);
  }
  const perNode = tree.nodes.map(
    (node) =>
      byElement.get(node.id) ??
      [...(roleActions.get(node.role) ?? [])].map((t) => t.replace('{id}', node.id)),
  );
  const verbs = [...new Set([...template, ...perNode.flat()].map(verbOf))];
  const elementActions = verbs.flatMap((verb) =>
    perNode.flatMap((actions) => actions.filter((a) => verbOf(a) === verb)),
  );
  const fixed = fixedFrom.filter((a) => actionElement(a) === undefined);
  const fixedFirst = template.length > 0 && actionElement(template[0] as string) === undefined;
  return fixedFirst ? [...fixed, ...elementActions] : [...elementActions, ...fixed];
}

function verbOf(action: string): string {
  return /^[a-z_]+/.exec(action)?.[0] ?? '';
}
