import { z } from 'zod';

/**
 * WebArena's task config format (one JSON object per task, as in WebArena's `config_files/` and
 * WebArena-Lite): what the browser env needs to run a task and what its evaluators check.
 * Fields we do not use are kept (`passthrough`) so a config round-trips unchanged.
 *
 * Site placeholders (`__SHOPPING__`, `__SHOPPING_ADMIN__`, `__REDDIT__`, `__GITLAB__`, `__MAP__`,
 * `__WIKIPEDIA__`, `__HOMEPAGE__`, and `__NAME__` for a site of a config's own) stand for the
 * sites' base URLs in `start_url`, `reference_url` and `program_html[].url`; they are substituted
 * per episode.
 */

/** `required_contents` of a program_html check: what the located text must contain or equal. */
export const RequiredContentsSchema = z
  .object({
    exact_match: z.string().optional(),
    /** Each entry may list alternatives joined by ` |OR| `; every entry must be matched. */
    must_include: z.array(z.string()).optional(),
    must_exclude: z.array(z.string()).optional(),
    /** WebArena-Lite: facts an LLM judge checks the located text against. */
    fuzzy_match: z.array(z.string()).optional(),
  })
  .passthrough();

export const ProgramHtmlCheckSchema = z
  .object({
    /** The page to check: a URL (placeholders allowed), or `last` for the page the episode ended on. */
    url: z.string(),
    /**
     * JavaScript evaluated on that page whose result is the text to check (e.g.
     * `document.querySelector('.title').outerText`); empty means the page's whole HTML, as in
     * WebArena. WebArena's `func:…` helpers are accepted where our evaluator implements them.
     */
    locator: z.string(),
    /** JavaScript statements run on the page before the locator (WebArena); errors are ignored. */
    prep_actions: z.array(z.string()).optional(),
    required_contents: RequiredContentsSchema,
  })
  .passthrough();

export const ReferenceAnswersSchema = z
  .object({
    exact_match: z.union([z.string(), z.number()]).optional(),
    /** Every entry must be in the answer. A lone string (one WebArena-Lite task has one) is one entry. */
    must_include: z
      .union([z.array(z.union([z.string(), z.number()])), z.string()])
      .transform((value) => (typeof value === 'string' ? [value] : value))
      .optional(),
    /** WebArena-Lite: phrases the answer must not contain. */
    must_exclude: z.array(z.string()).optional(),
    /** A list of facts for an LLM judge, or `N/A` for an unachievable task. */
    fuzzy_match: z.union([z.array(z.string()), z.string()]).optional(),
  })
  .passthrough();

export const EVAL_TYPES = ['string_match', 'url_match', 'program_html'] as const;
export type EvalType = (typeof EVAL_TYPES)[number];

export const EvalConfigSchema = z
  .object({
    eval_types: z.array(z.enum(EVAL_TYPES)).min(1),
    reference_answers: ReferenceAnswersSchema.nullable().optional(),
    /** Alternatives joined by ` |OR| `. */
    reference_url: z.string().nullable().optional(),
    /** WebArena's `GOLD in PRED` (query parameters of the gold URL must be in the final URL). */
    url_note: z.string().nullable().optional(),
    program_html: z.array(ProgramHtmlCheckSchema).nullable().optional(),
    string_note: z.string().nullable().optional(),
    reference_answer_raw_annotation: z.string().nullable().optional(),
  })
  .passthrough();

export const WebArenaConfigSchema = z
  .object({
    task_id: z.union([z.number().int(), z.string()]),
    sites: z.array(z.string()).min(1),
    start_url: z.string().min(1),
    intent: z.string().min(1),
    intent_template: z.string().optional(),
    intent_template_id: z.union([z.number().int(), z.string()]).optional(),
    instantiation_dict: z.record(z.string(), z.unknown()).optional(),
    require_login: z.boolean().default(false),
    /** A Playwright storage-state file (cookies, local storage) to start the context from. */
    storage_state: z.string().nullable().optional(),
    require_reset: z.boolean().optional(),
    geolocation: z.unknown().optional(),
    eval: EvalConfigSchema,
  })
  .passthrough();

export type RequiredContents = z.infer<typeof RequiredContentsSchema>;
export type ProgramHtmlCheck = z.infer<typeof ProgramHtmlCheckSchema>;
export type ReferenceAnswers = z.infer<typeof ReferenceAnswersSchema>;
export type EvalConfig = z.infer<typeof EvalConfigSchema>;
export type WebArenaConfig = z.infer<typeof WebArenaConfigSchema>;

/**
 * WebArena's site names and the placeholders that stand for their URLs in configs. A config may
 * name sites of its own too (`"sites": ["registry"]`); see {@link sitePlaceholder}.
 */
export const SITE_PLACEHOLDERS: Record<string, string> = {
  shopping: '__SHOPPING__',
  shopping_admin: '__SHOPPING_ADMIN__',
  reddit: '__REDDIT__',
  gitlab: '__GITLAB__',
  map: '__MAP__',
  wikipedia: '__WIKIPEDIA__',
  homepage: '__HOMEPAGE__',
};

/**
 * The placeholder that stands for `site`'s base URL in configs: WebArena's own for its seven
 * sites, and for any other site the same pattern, its name in upper case between double
 * underscores (`registry` → `__REGISTRY__`).
 */
export function sitePlaceholder(site: string): string {
  return SITE_PLACEHOLDERS[site] ?? `__${site.toUpperCase()}__`;
}

/** Alternatives in a WebArena reference string are joined by this. */
export const OR_SEPARATOR = ' |OR| ';

/**
 * `config` with every site placeholder replaced by its base URL in `urls` (site name → URL, as a
 * {@link SiteSession} gives them), in every string field. Placeholders of sites not in `urls` stay.
 */
export function substituteSites(
  config: WebArenaConfig,
  urls: Readonly<Record<string, string>>,
): WebArenaConfig {
  const pairs = Object.entries(urls).map(
    ([site, url]) => [sitePlaceholder(site), url.replace(/\/+$/, '')] as const,
  );
  const replace = (value: unknown): unknown => {
    if (typeof value === 'string') {
      return pairs.reduce((text, [placeholder, url]) => text.replaceAll(placeholder, url), value);
    }
    if (Array.isArray(value)) return value.map(replace);
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
    }
    return value;
  };
  return replace(config) as WebArenaConfig;
}
