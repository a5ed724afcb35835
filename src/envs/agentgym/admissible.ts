import type { Refusal } from './agentgym-env.ts';

/** Collapses case and spacing, so `Go to  Desk 1` finds `go to desk 1`. */
function normalize(command: string): string {
  return command.trim().replace(/\s+/g, ' ').toLowerCase();
}

/**
 * The listed command matching `action` (ignoring case and spacing), in the server's spelling, or
 * why there is none. With no commands listed, the action goes to the server as typed.
 */
export function admissibleCommand(action: string, actions: readonly string[]): string | Refusal {
  const wanted = normalize(action);
  if (wanted === '') return { invalid: 'an empty command: pick one of the listed actions.' };
  if (actions.length === 0) return action.trim();
  const match = actions.find((a) => normalize(a) === wanted);
  if (match !== undefined) return match;
  return {
    invalid: `"${action}" is not an admissible command here; pick one of the listed actions (e.g. "${actions[0]}").`,
  };
}
