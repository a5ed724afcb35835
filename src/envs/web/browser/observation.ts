import type { FlatElement } from './ax-tree.ts';

/** What one observation shows besides the tree. */
export interface PageHeader {
  /** Every open tab's title, in tab order. */
  tabTitles: readonly string[];
  /** Index of the current tab. */
  current: number;
  /** The current tab's URL. */
  url: string;
  /** Set right after a navigation failed (timeout, refused, blocked): what happened. */
  error?: string;
}

/**
 * The observation text: WebArena's tab line (`Tab 0 (current): Title | Tab 1: Other`), the URL
 * (WebArena puts it in the prompt, we put it in the state), an `Error:` line after a failed
 * navigation, a blank line, then the tree.
 */
export function renderObservation(header: PageHeader, tree: string): string {
  const tabs = header.tabTitles
    .map((title, i) =>
      i === header.current ? `Tab ${i} (current): ${title}` : `Tab ${i}: ${title}`,
    )
    .join(' | ');
  const error = header.error ? `\nError: ${header.error}` : '';
  return `${tabs}\nURL: ${header.url}${error}\n\n${tree}`;
}

/** Roles an agent clicks: links, buttons and other controls. */
const CLICKABLE = new Set([
  'link',
  'button',
  'checkbox',
  'radio',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'option',
  'MenuListOption',
  'treeitem',
  'combobox',
  'ListBoxOption',
  'DisclosureTriangle',
]);

/** Roles an agent types into (a select is a combobox: typing picks the option by its label). */
const TYPEABLE = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'textField']);

/**
 * The admissible actions of a page: `click [id]` for each clickable element, a
 * `type [id] [<text>]` template for each text field or select, the tab actions that apply, and
 * the page-independent ones (`scroll`, `go_back`, `go_forward`, `new_tab`, `press`, `goto`,
 * `stop`) as templates where they take free text.
 */
export function admissibleActions(
  elements: readonly FlatElement[],
  tabs: { count: number; current: number },
): string[] {
  const clicks: string[] = [];
  const types: string[] = [];
  for (const element of elements) {
    if (element.backendNodeId === undefined || element.properties.disabled === 'True') continue;
    if (CLICKABLE.has(element.role)) clicks.push(`click [${element.id}]`);
    if (TYPEABLE.has(element.role)) types.push(`type [${element.id}] [<text>]`);
  }
  const tabActions: string[] = [];
  for (let i = 0; i < tabs.count; i++) if (i !== tabs.current) tabActions.push(`tab_focus [${i}]`);
  if (tabs.count > 1) tabActions.push('close_tab');
  return [
    ...clicks,
    ...types,
    'scroll [down]',
    'scroll [up]',
    'go_back',
    'go_forward',
    'new_tab',
    ...tabActions,
    'press [<key_comb>]',
    'goto [<url>]',
    'stop [<answer>]',
  ];
}
