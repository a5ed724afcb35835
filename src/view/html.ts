/** HTML that is already safe to put in a page: markup made by {@link html}, never user text. */
export class Html {
  constructor(readonly value: string) {}

  /** The markup. */
  toString(): string {
    return this.value;
  }
}

/** What may go into an {@link html} template: text (escaped), markup, or lists of them. */
export type HtmlPart = string | number | boolean | null | undefined | Html | readonly HtmlPart[];

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function render(part: HtmlPart): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/**
 * A template tag for markup: every interpolated value is escaped unless it is itself {@link Html},
 * so episode text (pages, actions, reasoning: anything a model wrote) can never inject markup.
 * `null`, `undefined` and `false` render as nothing; arrays are joined.
 */
export function html(strings: TemplateStringsArray, ...parts: HtmlPart[]): Html {
  let out = strings[0] as string;
  parts.forEach((part, i) => {
    out += render(part) + (strings[i + 1] as string);
  });
  return new Html(out);
}

/** Trusted markup (an SVG rendered by vega, say) as {@link Html}. */
export function raw(markup: string): Html {
  return new Html(markup);
}
