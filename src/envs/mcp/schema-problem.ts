import type { z } from 'zod';

/**
 * The first problem zod found, as `where: what`, e.g. `setup[0].tool: expected a string`; `whole`
 * names the root (`the line`, `the config`). One problem at a time keeps the message readable.
 */
export function schemaProblem(error: z.ZodError, whole: string): string {
  const issue = error.issues[0];
  if (!issue) return `${whole} is malformed`;
  const where = issue.path.reduce<string>(
    (path, key) =>
      typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${String(key)}` : String(key),
    '',
  );
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`
      : issue.message;
  return `${where || whole}: ${message}`;
}
