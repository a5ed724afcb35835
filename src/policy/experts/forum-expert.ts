import type { Rng } from '../../core/rng.ts';
import type { Observation, Step } from '../../core/types.ts';
import type { TreeNode } from '../../envs/formats/web-tree.ts';
import { forumTemplateOf } from '../../envs/web/sites/forum/forum-tasks.ts';
import type { Policy, PolicyAction, PolicyContext } from '../policy.ts';
import { ForumPage, isPressed } from './forum-expert-page.ts';

/** The forum expert's mistake rate. */
export interface ForumExpertOptions {
  /**
   * Chance of a realistic mistake at each decision: a wrong link, a premature stop, a typo in
   * typed text, a wasted scroll. 0 plays every task as designed; 0.3 gives mixed offline data.
   */
  epsilon?: number;
}

/** What one decision needs: the page now, the task's slots and the episode so far. */
interface Turn {
  page: ForumPage;
  slots: Record<string, string>;
  history: readonly Step[];
  /** The site's origin: the page's, or the last one seen when the page is an error page. */
  origin: string;
}

/** A decision, or `undefined` when a sub-goal is already reached ("go on with the next one"). */
type Move = PolicyAction | undefined;

const click = (node: TreeNode, why: string): PolicyAction => ({
  action: `click [${node.id}]`,
  reasoning: why,
});
const stop = (answer: string, why: string): PolicyAction => ({
  action: `stop [${answer}]`,
  reasoning: why,
});

/**
 * A scripted forum user for offline data: it knows the task's template and slots (as the webshop
 * expert knows its goal) and acts only through WebArena's actions on what the tree text shows —
 * it finds posts with the search box, forums through the forum list, users through search or
 * links, reads `Label: value` facts, fills forms field by field and submits them. Every decision
 * is made from the current page (and, for two-stage tasks, what an earlier page showed), so it
 * recovers from its own wrong turns. With probability ε per decision it errs.
 */
export class ForumExpert implements Policy {
  readonly id: string;
  readonly epsilon: number;

  constructor(options: ForumExpertOptions = {}) {
    this.epsilon = options.epsilon ?? 0;
    if (!(this.epsilon >= 0 && this.epsilon <= 1)) {
      throw new RangeError(`ForumExpert: epsilon must be in [0, 1], got ${this.epsilon}`);
    }
    this.id = `forum-expert(eps=${this.epsilon})`;
  }

  async act(
    observation: Observation,
    { task, history, rng }: PolicyContext,
  ): Promise<PolicyAction> {
    const { template, config } = forumTemplateOf(task);
    const slots = Object.fromEntries(
      Object.entries(config.instantiation_dict ?? {}).map(([k, v]) => [k, String(v)]),
    );
    const page = new ForumPage(observation.text);
    const turn: Turn = { page, slots, history, origin: siteOrigin(page, history) };
    const planned = plan(template.key, turn);
    if (this.epsilon > 0 && rng.chance(this.epsilon)) return mistake(planned, turn, rng);
    return planned;
  }
}

/** The expert's next action for a task of template `key`. */
function plan(key: string, turn: Turn): PolicyAction {
  const { page, slots } = turn;
  const title = slots.title ?? '';
  const forum = slots.forum ?? '';
  const user = slots.user ?? '';
  switch (key) {
    case 'post_author':
      return toPost(turn, title) ?? answer(page.fact('Author'), 'the post names its author');
    case 'post_score':
      return toPost(turn, title) ?? answer(page.fact('Score'), 'the post shows its score');
    case 'post_comment_count':
      return toPost(turn, title) ?? answer(page.fact('Comments'), 'the post counts its comments');
    case 'post_forum':
      return (
        toPost(turn, title) ??
        answer(page.fact('Forum')?.replace(/^f\//, ''), 'the post names its forum')
      );
    case 'post_date':
      return toPost(turn, title) ?? answer(page.fact('Submitted'), 'the post shows its date');
    case 'forum_top_post':
      return toForum(turn, forum, 'top') ?? answer(page.postTitles()[0], 'first of the top list');
    case 'forum_newest_post':
      return toForum(turn, forum, 'new') ?? answer(page.postTitles()[0], 'first of the new list');
    case 'forum_subscribers':
      return toForum(turn, forum) ?? answer(page.fact('Subscribers'), 'the forum counts them');
    case 'forum_post_count':
      return toForum(turn, forum) ?? answer(page.fact('Total posts'), 'the forum counts them');
    case 'forum_moderator':
      return (
        toForum(turn, forum) ?? answer(page.fact('Moderator'), 'the forum names its moderator')
      );
    case 'forum_description':
      return toForum(turn, forum) ?? answer(forumDescription(page), 'the line under the heading');
    case 'user_karma':
      return toUser(turn, user) ?? answer(page.fact('Karma'), 'the profile shows karma');
    case 'user_joined':
      return toUser(turn, user) ?? answer(page.fact('Joined'), 'the profile shows the join date');
    case 'user_post_count':
      return toUser(turn, user) ?? answer(page.fact('Posts submitted'), 'the profile counts them');
    case 'user_comment_count':
      return toUser(turn, user) ?? answer(page.fact('Comments written'), 'the profile counts them');
    case 'user_top_post':
      return toUser(turn, user, 'top') ?? answer(page.postTitles()[0], 'first of the top list');
    case 'post_top_comment_author':
      return toPost(turn, title) ?? answer(topCommenter(page), 'the comment with most points');
    case 'post_comments_by_user':
      return (
        toPost(turn, title) ??
        answer(
          String(page.comments().filter((c) => c.author === user).length),
          `counted the comments by ${user}`,
        )
      );
    case 'search_count':
      return toSearch(turn, slots.query ?? '') ?? answer(page.fact('Posts found'), 'results count');
    case 'my_subscription_count':
      return (
        toPath(turn, '/subscriptions', 'Subscriptions') ??
        answer(page.fact('Subscribed forums'), 'the page counts them')
      );
    case 'open_forum':
      return toForum(turn, forum) ?? arrived();
    case 'open_post':
      return toPost(turn, title) ?? arrived();
    case 'open_user':
      return toUser(turn, user) ?? arrived();
    case 'forum_sorted_top':
      return toForum(turn, forum, 'top') ?? arrived();
    case 'forum_sorted_new':
      return toForum(turn, forum, 'new') ?? arrived();
    case 'user_comments_page':
      return toUser(turn, user, 'comments') ?? arrived();
    case 'search_page':
      return toSearch(turn, slots.query ?? '') ?? arrived();
    case 'open_user_top_post':
      return viaList(turn, `/user/${user}`, 'top', () => toUser(turn, user, 'top')) ?? arrived();
    case 'open_forum_newest_post':
      return viaList(turn, `/f/${forum}`, 'new', () => toForum(turn, forum, 'new')) ?? arrived();
    case 'upvote_post':
      return toPost(turn, title) ?? vote(page, 'Upvote', true);
    case 'downvote_post':
      return toPost(turn, title) ?? vote(page, 'Downvote', true);
    case 'unvote_post':
      return toPost(turn, title) ?? vote(page, 'Upvote', false);
    case 'upvote_comment':
      return toPost(turn, title) ?? vote(page, `Upvote comment by ${user}`, true);
    case 'downvote_comment':
      return toPost(turn, title) ?? vote(page, `Downvote comment by ${user}`, true);
    case 'subscribe':
      return toForum(turn, forum) ?? subscribe(page, true);
    case 'unsubscribe':
      return toForum(turn, forum) ?? subscribe(page, false);
    case 'subscribe_post_forum':
      return subscribePostForum(turn, title);
    case 'create_post':
      return createPost(turn);
    case 'comment_post':
      return commentPost(turn);
    case 'reply_comment':
      return replyComment(turn);
    case 'edit_post_body':
      return editPost(turn, 'New body', slots.text ?? '');
    case 'edit_post_title':
      return editPost(turn, 'New title', slots.new_title ?? '');
    case 'delete_post':
      return deleteOwn(turn, 'Delete post', 'Your post was deleted.');
    case 'edit_comment':
      return editComment(turn);
    case 'delete_comment':
      return deleteOwn(turn, 'Delete comment', 'Your comment was deleted.');
    case 'create_forum':
      return createForum(turn);
    case 'update_bio':
      return updateBio(turn);
    case 'upvote_forum_top_post':
      return (
        viaList(turn, `/f/${forum}`, 'top', () => toForum(turn, forum, 'top')) ??
        vote(page, 'Upvote', true)
      );
    default:
      return stop('', `no plan for template ${key}`);
  }
}

function answer(value: string | undefined, why: string): PolicyAction {
  return stop(value?.trim() ?? '', value === undefined ? 'the page does not show it' : why);
}

function arrived(): PolicyAction {
  return stop('', 'this is the page asked for');
}

/** On the post titled `title`, or one step closer: its link if shown, else a title search. */
function toPost({ page, origin }: Turn, title: string): Move {
  if (/^\/f\/[^/]+\/\d+$/.test(page.path) && page.heading() === title) return undefined;
  const link = page.link(title);
  if (link) return click(link, 'open the post');
  return search(page, origin, title, 'search the post title');
}

/** On f/`forum` (sorted by `sort` when given), or one step closer. */
function toForum({ page, origin }: Turn, forum: string, sort?: 'top' | 'new'): Move {
  const onForum = page.path === `/f/${forum}`;
  if (onForum && (sort === undefined || page.query('sort') === sort)) return undefined;
  if (onForum && sort) {
    const sortLink = page.link(sort === 'top' ? 'Top' : 'New');
    if (sortLink) return click(sortLink, `sort the forum by ${sort}`);
  }
  const link = page.link(`f/${forum}`);
  if (link) return click(link, 'open the forum');
  const forums = page.link('Forums');
  if (forums && page.path !== '/forums') return click(forums, 'open the list of forums');
  return { action: `goto [${origin}/f/${forum}]`, reasoning: 'the forum is not linked here' };
}

/** On `user`'s profile (its top-sorted posts or its comments when asked), or one step closer. */
function toUser({ page, origin }: Turn, user: string, section?: 'top' | 'comments'): Move {
  const profile = `/user/${user}`;
  if (section === 'comments' && page.path === `${profile}/comments`) return undefined;
  if (section !== 'comments' && page.path === profile) {
    if (section === undefined || page.query('sort') === 'top') return undefined;
  }
  if (page.path === profile || page.path === `${profile}/comments`) {
    const tab = page.link(section === 'comments' ? 'Comments' : 'Top');
    if (tab) return click(tab, section === 'comments' ? 'open the comments tab' : 'sort by top');
  }
  const link = page.link(user);
  if (link) return click(link, `open the profile of ${user}`);
  return search(page, origin, user, 'search the user name');
}

/** On the search results for `query`, or typing it into the search box. */
function toSearch({ page, origin }: Turn, query: string): Move {
  if (page.path === '/search' && page.query('q') === query) return undefined;
  return search(page, origin, query, 'search for it');
}

function search(page: ForumPage, origin: string, query: string, why: string): PolicyAction {
  const box = page.field('Search');
  if (box) return { action: `type [${box.id}] [${query}] [1]`, reasoning: why };
  return {
    action: `goto [${origin}/search?q=${encodeURIComponent(query)}]`,
    reasoning: 'no search box on this page',
  };
}

/** On `path`, reached by the link `linkName`. */
function toPath({ page, origin }: Turn, path: string, linkName: string): Move {
  if (page.path === path) return undefined;
  const link = page.link(linkName);
  if (link) return click(link, `open ${linkName}`);
  return { action: `goto [${origin}${path}]`, reasoning: `no ${linkName} link here` };
}

/**
 * The first post of a sorted list, opened: the list page is reached with `toList`, its first
 * title remembered from that page's observation, then followed. Undefined once on that post.
 */
function viaList(turn: Turn, listPath: string, sort: string, toList: () => Move): Move {
  const target = seenOn(turn, (page) =>
    page.path === listPath && page.query('sort') === sort ? page.postTitles()[0] : undefined,
  );
  if (target === undefined) return toList();
  return toPost(turn, target);
}

/** The latest value `read` finds on the current page or an earlier observation. */
function seenOn(turn: Turn, read: (page: ForumPage) => string | undefined): string | undefined {
  const now = read(turn.page);
  if (now !== undefined) return now;
  for (let i = turn.history.length - 1; i >= 0; i--) {
    const value = read(new ForumPage((turn.history[i] as Step).observation.text));
    if (value !== undefined) return value;
  }
  return undefined;
}

function vote(page: ForumPage, buttonName: string, wantPressed: boolean): PolicyAction {
  const button = page.button(buttonName);
  if (!button) return stop('', `no ${buttonName} button on this page`);
  if (isPressed(button) === wantPressed) return stop('', 'the vote is as asked');
  return click(button, `press ${buttonName}`);
}

function subscribe(page: ForumPage, want: boolean): PolicyAction {
  const done = page.button(want ? 'Unsubscribe' : 'Subscribe');
  if (done) return stop('', want ? 'subscribed' : 'unsubscribed');
  const button = page.button(want ? 'Subscribe' : 'Unsubscribe');
  if (!button) return stop('', 'no subscription button here');
  return click(button, want ? 'subscribe' : 'unsubscribe');
}

function subscribePostForum(turn: Turn, title: string): PolicyAction {
  const forum = seenOn(turn, (page) =>
    page.heading() === title && /^\/f\/[^/]+\/\d+$/.test(page.path)
      ? page.fact('Forum')?.replace(/^f\//, '')
      : undefined,
  );
  if (forum === undefined) return toPost(turn, title) ?? stop('', 'the post names no forum');
  return toForum(turn, forum) ?? subscribe(turn.page, true);
}

/**
 * The next field of a form to fill, in order; then its submit button. A field counts as filled
 * when an earlier action on this same page typed into it, or the tree shows it holding the text.
 */
function fillForm(
  turn: Turn,
  fields: ReadonlyArray<readonly [label: string, text: string]>,
  submit: string,
): PolicyAction {
  const typed = typedOnThisPage(turn);
  for (const [label, text] of fields) {
    const field = turn.page.field(label);
    if (!field) return stop('', `the form has no field ${label}`);
    const holds = field.props.some(([k, v]) => k === 'value' && v === text);
    if (!holds && !typed.has(field.id)) {
      return { action: `type [${field.id}] [${text}] [0]`, reasoning: `fill in ${label}` };
    }
  }
  const button = turn.page.button(submit);
  if (!button) return stop('', `the form has no ${submit} button`);
  return click(button, 'submit the form');
}

/** Ids typed into by the latest actions that left the browser on the current URL. */
function typedOnThisPage({ page, history }: Turn): Set<string> {
  const ids = new Set<string>();
  const here = page.url?.href;
  for (let i = history.length - 1; i >= 0; i--) {
    const step = history[i] as Step;
    if (new ForumPage(step.observation.text).url?.href !== here) break;
    const typed = /^type \[([^\]]+)\]/.exec(step.action);
    if (typed) ids.add(typed[1] as string);
  }
  return ids;
}

function createPost(turn: Turn): PolicyAction {
  const { page, slots } = turn;
  const title = slots.new_title ?? '';
  if (page.heading() === title && /^\/f\/[^/]+\/\d+$/.test(page.path)) {
    return stop('', 'the post is created');
  }
  if (page.path === '/submit') {
    return fillForm(
      turn,
      [
        ['Title', title],
        ['Body', slots.new_body ?? ''],
      ],
      'Create post',
    );
  }
  const forum = slots.forum ?? '';
  const toIt = toForum(turn, forum);
  if (toIt) return toIt;
  const submit = page.link('Submit a post');
  return submit ? click(submit, 'open the post form for this forum') : stop('', 'no post form');
}

function commentPost(turn: Turn): PolicyAction {
  const { page, slots } = turn;
  const text = slots.text ?? '';
  const toIt = toPost(turn, slots.title ?? '');
  if (toIt) return toIt;
  const me = page.signedInAs();
  if (page.comments().some((c) => c.author === me && c.texts.includes(text))) {
    return stop('', 'the comment is posted');
  }
  return fillForm(turn, [['Add a comment', text]], 'Post comment');
}

function replyComment(turn: Turn): PolicyAction {
  const { page, slots } = turn;
  const user = slots.user ?? '';
  const text = slots.text ?? '';
  if (/^\/comment\/\d+\/reply$/.test(page.path))
    return fillForm(turn, [['Reply', text]], 'Post reply');
  const toIt = toPost(turn, slots.title ?? '');
  if (toIt) return toIt;
  const me = page.signedInAs();
  const replied = page
    .comments()
    .some((c) => c.author === me && c.parentAuthor === user && c.texts.includes(text));
  if (replied) return stop('', 'the reply is posted');
  const reply = page.link(`Reply to ${user}`);
  return reply ? click(reply, `reply to ${user}`) : stop('', `no comment by ${user} here`);
}

function editPost(turn: Turn, field: 'New title' | 'New body', text: string): PolicyAction {
  const { page, slots } = turn;
  if (/\/edit$/.test(page.path)) return fillForm(turn, [[field, text]], 'Save changes');
  const onPost = /^\/f\/[^/]+\/\d+$/.test(page.path);
  if (onPost && (field === 'New title' ? page.heading() === text : page.shows(text))) {
    return stop('', 'the post is updated');
  }
  const toIt = toPost(turn, slots.title ?? '');
  if (toIt) return toIt;
  const edit = page.link('Edit post');
  return edit ? click(edit, 'edit the post') : stop('', 'this post is not mine to edit');
}

function editComment(turn: Turn): PolicyAction {
  const { page, slots } = turn;
  const text = slots.text ?? '';
  if (/^\/comment\/\d+\/edit$/.test(page.path)) {
    return fillForm(turn, [['New text', text]], 'Save comment');
  }
  const toIt = toPost(turn, slots.title ?? '');
  if (toIt) return toIt;
  const me = page.signedInAs();
  const mine = page.comments().find((c) => c.author === me);
  if (mine?.texts.includes(text)) return stop('', 'the comment is updated');
  const edit = mine?.controls.find((n) => n.role === 'link' && n.name === 'Edit comment');
  return edit ? click(edit, 'edit my comment') : stop('', 'I have no comment here');
}

/** Deletes my post or comment on the task's post: its Delete link, then the confirmation. */
function deleteOwn(turn: Turn, linkName: string, confirmed: string): PolicyAction {
  const { page, slots } = turn;
  if (page.shows(confirmed)) return stop('', 'deleted');
  const yes = page.button('Yes, delete it');
  if (yes) return click(yes, 'confirm the deletion');
  const toIt = toPost(turn, slots.title ?? '');
  if (toIt) return toIt;
  const link = page.link(linkName);
  return link ? click(link, linkName.toLowerCase()) : stop('', 'nothing of mine to delete');
}

function createForum(turn: Turn): PolicyAction {
  const { page, slots } = turn;
  const name = slots.name ?? '';
  if (page.path === `/f/${name}`) return stop('', 'the forum exists');
  if (page.path === '/create_forum') {
    return fillForm(
      turn,
      [
        ['Name', name],
        ['Description', slots.description ?? ''],
      ],
      'Create forum',
    );
  }
  return (
    toPath(turn, '/forums', 'Forums') ??
    toPath(turn, '/create_forum', 'Create a forum') ??
    arrived()
  );
}

function updateBio(turn: Turn): PolicyAction {
  const { page, slots } = turn;
  const text = slots.text ?? '';
  if (page.path.startsWith('/user/') && page.shows(text)) return stop('', 'the bio is saved');
  if (page.path === '/settings') return fillForm(turn, [['New bio', text]], 'Save bio');
  return toPath(turn, '/settings', 'Settings') ?? arrived();
}

function forumDescription(page: ForumPage): string | undefined {
  const heading = page.nodes.findIndex((n) => n.role === 'heading');
  return page.nodes.slice(heading + 1).find((n) => n.role === 'StaticText')?.name;
}

function topCommenter(page: ForumPage): string | undefined {
  let best: { author: string; score: number } | undefined;
  for (const comment of page.comments()) {
    if (comment.score !== undefined && (best === undefined || comment.score > best.score)) {
      best = { author: comment.author, score: comment.score };
    }
  }
  return best?.author;
}

/** The origin of the page, or of the latest http(s) page seen (an error page has none). */
function siteOrigin(page: ForumPage, history: readonly Step[]): string {
  const pages = [page, ...[...history].reverse().map((s) => new ForumPage(s.observation.text))];
  const seen = pages.find((p) => p.url?.protocol === 'http:' || p.url?.protocol === 'https:');
  return seen?.url?.origin ?? '';
}

/**
 * A slip instead of `planned`: a typo in typed text, a premature or wrong answer, a link other
 * than the planned one, or a wasted scroll.
 */
function mistake(planned: PolicyAction, turn: Turn, rng: Rng): PolicyAction {
  const typed = /^type \[([^\]]+)\] \[(.*)\] \[([01])\]$/.exec(planned.action);
  if (typed && rng.chance(0.5)) {
    const words = (typed[2] as string).split(' ');
    const short = words.length > 1 ? words.slice(0, -1).join(' ') : `${words[0]}x`;
    return {
      action: `type [${typed[1]}] [${short}] [${typed[3]}]`,
      reasoning: 'a typo (noise)',
    };
  }
  const kind = rng.weighted(['link', 'stop', 'scroll'], [0.55, 0.2, 0.25]);
  if (kind === 'stop') {
    const texts = turn.page.nodes.filter((n) => n.role === 'StaticText' && n.name);
    const guess = texts.length > 0 && rng.chance(0.5) ? (rng.pick(texts).name as string) : '';
    return stop(guess, 'stopped too early (noise)');
  }
  if (kind === 'link') {
    const links = turn.page.nodes.filter(
      (n) => n.role === 'link' && planned.action !== `click [${n.id}]`,
    );
    if (links.length > 0) return click(rng.pick(links), 'followed the wrong link (noise)');
  }
  return { action: 'scroll [down]', reasoning: 'scrolled instead of acting (noise)' };
}
