import { parseNode, subtree, type TreeNode } from '../../envs/formats/web-tree.ts';

/**
 * A forum page as the forum expert sees it: the observation's accessibility-tree text (WebArena's
 * `[id] role 'name' props` lines under a `URL: …` header), read back into the few things the
 * expert looks for — links, buttons and fields by name, `Label: value` facts, the post list, the
 * comment thread. Only the text is read, never the site or its database.
 */
export class ForumPage {
  readonly url: URL | undefined;
  readonly nodes: readonly TreeNode[];

  constructor(text: string) {
    const header = /^URL: (.*)$/m.exec(text)?.[1]?.trim();
    let url: URL | undefined;
    try {
      url = header ? new URL(header) : undefined;
    } catch {
      url = undefined;
    }
    this.url = url;
    this.nodes = text
      .split('\n')
      .map((line) => parseNode(line))
      .filter((node): node is TreeNode => node !== undefined && node.role !== 'InlineTextBox');
  }

  /** The URL's path, decoded, without a trailing slash (`/` for the front page). */
  get path(): string {
    const path = decodeURIComponent(this.url?.pathname ?? '/').replace(/(.)\/+$/, '$1');
    return path || '/';
  }

  query(key: string): string | undefined {
    return this.url?.searchParams.get(key) ?? undefined;
  }

  /** The first element of `role` named exactly `name`. */
  find(role: string, name: string): TreeNode | undefined {
    return this.nodes.find((n) => n.role === role && n.name === name);
  }

  link(name: string): TreeNode | undefined {
    return this.find('link', name);
  }

  button(name: string): TreeNode | undefined {
    return this.find('button', name);
  }

  /** A text field (textbox or searchbox) by its label. */
  field(name: string): TreeNode | undefined {
    return this.nodes.find(
      (n) => (n.role === 'textbox' || n.role === 'searchbox') && n.name === name,
    );
  }

  /** True when some element's name is exactly `text` (a heading, a paragraph, a message). */
  shows(text: string): boolean {
    return this.nodes.some((n) => n.name === text);
  }

  /** The page's main heading (the first heading after the banner). */
  heading(): string | undefined {
    const main = this.nodes.findIndex((n) => n.role === 'main');
    return this.nodes.slice(Math.max(0, main)).find((n) => n.role === 'heading')?.name;
  }

  /**
   * The value of a `Label: value` fact: the rest of the text after `Label: `, or, when the value
   * is a link (`Author: ` then `link 'name'`), the next element's name.
   */
  fact(label: string): string | undefined {
    const prefix = `${label}:`;
    const at = this.nodes.findIndex((n) => n.name?.startsWith(prefix) === true);
    if (at < 0) return undefined;
    const rest = (this.nodes[at]?.name ?? '').slice(prefix.length).trim();
    if (rest) return rest;
    return this.nodes.slice(at + 1).find((n) => (n.name ?? '').trim() !== '')?.name;
  }

  /** The name of the user signed in, from the banner's `Signed in as` link. */
  signedInAs(): string | undefined {
    const at = this.nodes.findIndex((n) => n.name?.startsWith('Signed in as') === true);
    return at < 0 ? undefined : this.nodes.slice(at + 1).find((n) => n.role === 'link')?.name;
  }

  /** The titles of the posts listed (`list 'Posts'`), in page order. */
  postTitles(): string[] {
    const at = this.nodes.findIndex((n) => n.role === 'list' && n.name === 'Posts');
    if (at < 0) return [];
    const [start, end] = subtree(this.nodes, at);
    return this.nodes
      .slice(start + 1, end)
      .filter((n) => n.role === 'heading')
      .map((n) => n.name ?? '');
  }

  /** The comments of a post page, in thread order, each with the ids of its own controls. */
  comments(): ForumComment[] {
    const found: ForumComment[] = [];
    for (const [index, node] of this.nodes.entries()) {
      const author = /^Comment by (.+)$/.exec(
        node.role === 'article' ? (node.name ?? '') : '',
      )?.[1];
      if (!author) continue;
      const [start, end] = subtree(this.nodes, index);
      // The comment's own lines stop where its first nested reply starts.
      const firstReply = this.nodes.findIndex(
        (n, i) => i > start && i < end && n.role === 'article',
      );
      const own = this.nodes.slice(start + 1, firstReply < 0 ? end : firstReply);
      const scoreText = own.find((n) => /^-?\d+ points?$/.test(n.name ?? ''))?.name;
      const parent = found.findLast((c) => c.depth < node.depth);
      found.push({
        author,
        depth: node.depth,
        parentAuthor: parent && parent.end > index ? parent.author : undefined,
        end,
        score: scoreText === undefined ? undefined : Number.parseInt(scoreText, 10),
        texts: own.filter((n) => n.role === 'StaticText').map((n) => (n.name ?? '').trim()),
        controls: own.filter((n) => n.role === 'link' || n.role === 'button'),
      });
    }
    return found;
  }
}

/** One comment of a post page as the tree shows it. */
export interface ForumComment {
  author: string;
  depth: number;
  /** The author of the comment it replies to; undefined for a top-level comment. */
  parentAuthor: string | undefined;
  /** Index just past its subtree (its replies included) in the page's nodes. */
  end: number;
  score: number | undefined;
  /** Its own text lines (not its replies'). */
  texts: string[];
  /** Its own links and buttons (Reply, Edit comment, votes). */
  controls: TreeNode[];
}

/** The value of property `key` of a node (e.g. `pressed`). */
export function property(node: TreeNode | undefined, key: string): string | undefined {
  return node?.props.find(([k]) => k === key)?.[1];
}

/** True for a toggle button shown as pressed (`pressed: true`, any case). */
export function isPressed(node: TreeNode | undefined): boolean {
  return property(node, 'pressed')?.toLowerCase() === 'true';
}
