/** Fills an action template such as `search[<query>]` with a value. */
export function fillTemplate(template: string, value: string): string {
  return template.replace(/<[^<>]+>/, value);
}

/**
 * Parses `verb[argument]` (WebShop's action syntax). Returns undefined for anything else,
 * e.g. `click[` or `search`.
 */
export function parseBracketAction(action: string): { verb: string; arg: string } | undefined {
  const match = /^\s*([a-z_]+)\s*\[(.*)\]\s*$/is.exec(action);
  if (!match) return undefined;
  return { verb: (match[1] as string).toLowerCase(), arg: (match[2] as string).trim() };
}
