/**
 * Error classes. Each names the problem and the likely fix, so a user can act on the message
 * alone. Recoverable problems (an invalid action, say) are not errors: they come back in results.
 */

export class DreamGymError extends Error {
  override name = 'DreamGymError';
}

/** `step()` was called before `reset()`. */
export class EnvNotResetError extends DreamGymError {
  override name = 'EnvNotResetError';
  constructor(env: string) {
    super(`${env}: step() called before reset(). Call reset() to start an episode first.`);
  }
}

/** `step()` was called after the episode terminated or was truncated. */
export class EpisodeEndedError extends DreamGymError {
  override name = 'EpisodeEndedError';
  constructor(env: string, how: 'terminated' | 'truncated') {
    super(`${env}: step() called after the episode ${how}. Call reset() to start a new episode.`);
  }
}

/** The env was used after `close()`. */
export class EnvClosedError extends DreamGymError {
  override name = 'EnvClosedError';
  constructor(env: string) {
    super(`${env}: the env is closed. Create a new env instead of reusing a closed one.`);
  }
}

/** A configuration value or option is wrong. */
export class ConfigError extends DreamGymError {
  override name = 'ConfigError';
}

/** A task cannot be run by this env (wrong env family, missing or malformed spec). */
export class TaskError extends DreamGymError {
  override name = 'TaskError';
}

/** A data file is malformed. Names the file and the 1-based line. */
export class DataFormatError extends DreamGymError {
  override name = 'DataFormatError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(`${file}:${line}: ${problem}`);
  }
}
