import { actionContext, words } from '../../core/text.ts';
import { isActionTemplate } from '../../core/types.ts';
import {
  isWebObservation,
  type WebCandidate,
  webCandidates,
  webPageKind,
} from '../web/web-candidates.ts';
import { webTokens } from '../web/web-features.ts';
import { WEB_RELATIONS, type WebFacts, webFacts, webRelations } from '../web/web-relations.ts';
import type { Decision, PageFamily } from './feature-set.ts';
import type { CrossTokens } from './hashing.ts';

/** A web decision's facts: what each candidate refers to, the episode's facts, the page kind. */
export interface WebView {
  candidates: Map<string, WebCandidate>;
  facts: WebFacts;
  pageKind: string;
  instructionWords: readonly string[];
}

/**
 * The web family's part of the page features: on WebArena-style pages (accessibility trees) it
 * chooses among the page's elements and answers ({@link webCandidates}), names the page's kind by
 * its URL, tells what each candidate points at, hashes the candidate's surroundings crossed with
 * the instruction and the episode's progress, and writes the {@link webRelations} into the whole
 * family block. On other pages it does nothing.
 */
export const webFamily: PageFamily<WebView | undefined> = {
  name: 'web',
  actionScalars: WEB_RELATIONS,
  stateScalars: 0,

  candidates(observation) {
    return isWebObservation(observation)
      ? webCandidates(observation).map((c) => c.action)
      : undefined;
  },

  pageKind(observation) {
    return isWebObservation(observation) ? webPageKind(observation.text) : undefined;
  },

  view(decision: Decision) {
    const { observation } = decision;
    if (!isWebObservation(observation)) return undefined;
    return {
      candidates: new Map(webCandidates(observation).map((c) => [c.action, c])),
      facts: webFacts(observation, decision.history, decision.observations ?? []),
      pageKind: webPageKind(observation.text),
      instructionWords: words(observation.instruction),
    };
  },

  context(view, action) {
    return view?.candidates.get(action)?.context;
  },

  action(view, decision, action, block, hash) {
    if (!view) return;
    const { observation, history } = decision;
    const candidate = view.candidates.get(action);
    // As the page features' own context: a recorded action outside the candidates (an
    // expert's) is described by what follows its label on the page.
    const context =
      candidate?.context ??
      (isActionTemplate(action) ? '' : actionContext(action, observation.text));
    const label = action.replace(/^\s*[a-z_]+\s*\[?/i, '').replace(/\]\s*$/, '');
    hash(webCrosses(view, verbOf(action), label, context), 0.5);
    hash(webTokens(observation, history, view.pageKind, action, context), 1);
    if (candidate) block.set(webRelations(view.facts, candidate));
  },

  state() {},
};

/** An action's verb: its leading word, lower-cased. */
function verbOf(action: string): string {
  return /^\s*([a-z_]+)/i.exec(action)?.[1]?.toLowerCase() ?? '';
}

/**
 * What lets a policy learn which element or answer a question asks for — the candidate's
 * surroundings (a cell's row header, the words before a number) crossed with the instruction's
 * words, and the answer's shape (number, date, amount, words) crossed with the question's
 * opening ("how many" → a number).
 */
function webCrosses(view: WebView, verb: string, label: string, context: string): CrossTokens {
  const around = [...new Set(words(context).filter((w) => !/\d/.test(w)))].slice(0, 10);
  const asked = view.instructionWords.filter((w) => !/\d/.test(w));
  const extra: string[] = [];
  if (verb === 'stop') {
    const shape = /^\$/.test(label)
      ? 'money'
      : /^\d{4}-\d{2}-\d{2}$|^[A-Z][a-z]{2} \d{1,2}, \d{4}$/.test(label)
        ? 'date'
        : /^[\d,.]+$/.test(label)
          ? 'number'
          : label === ''
            ? 'none'
            : 'words';
    const opening = view.instructionWords.slice(0, 2).join('_');
    extra.push(`shape:${shape}|${opening}`, `shape:${shape}|${view.pageKind}`);
  }
  return { prefix: `w:${verb}|`, lefts: around, rights: asked, extra };
}
