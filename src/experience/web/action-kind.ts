import { nodeById, parseTree, prop } from '../../envs/formats/web-tree.ts';
import { parseWebAction } from './actions.ts';

/**
 * A coarse name for a web action on a page, to break fidelity down: `click:link`,
 * `click:button`, `click:button (submit)` (a button pressed while a field holds a value),
 * `type`, `type+enter (submit)`, `navigate` (goto, back, forward), `tab`, `scroll`, `press`,
 * `stop`. Undefined when `stateText` is not an accessibility-tree page or the action follows no
 * WebArena syntax.
 */
export function webActionKind(action: string, stateText: string): string | undefined {
  const tree = parseTree(stateText);
  const parsed = parseWebAction(action);
  if (!tree || !parsed) return undefined;
  switch (parsed.kind) {
    case 'click':
    case 'hover': {
      const role = nodeById(tree, parsed.id)?.role ?? 'unknown-element';
      const filled = tree.nodes.some((n) => (prop(n, 'value') ?? '') !== '');
      return `${parsed.kind}:${role}${role === 'button' && filled ? ' (submit)' : ''}`;
    }
    case 'type':
      return parsed.enter ? 'type+enter (submit)' : 'type';
    case 'goto':
    case 'go_back':
    case 'go_forward':
      return 'navigate';
    case 'new_tab':
    case 'tab_focus':
    case 'close_tab':
      return 'tab';
    default:
      return parsed.kind;
  }
}
