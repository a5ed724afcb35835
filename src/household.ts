/**
 * The `household` env: text household tasks after ALFWorld with generated scenes and ALFWorld's
 * command grammar, its scripted expert, and the explorer that plays from what an agent sees.
 *
 * @packageDocumentation
 */
export {
  HOUSEHOLD_MAX_STEPS,
  HouseholdEnv,
  type HouseholdOptions,
  type MakeHouseholdOptions,
  makeHousehold,
} from './envs/household/household-env.ts';
export { HouseholdExpert, type HouseholdExpertOptions } from './policy/experts/household-expert.ts';
export {
  HouseholdExplorer,
  type HouseholdExplorerOptions,
} from './policy/experts/household-explorer.ts';
