import { envEntry } from '../envs/registry.ts';
import { type EnvSetup, envSetup } from './experiment.ts';

/** A site's env setup with the demo's step limit on its real env. */
export function webSetup(site: string, evalEpisodes: number, maxEpisodeSteps: number): EnvSetup {
  const entry = envEntry(site);
  return {
    ...envSetup(site, { testTasks: evalEpisodes }),
    makeReal: () => entry.make({ maxSteps: maxEpisodeSteps }),
    maxEpisodeSteps,
  };
}
