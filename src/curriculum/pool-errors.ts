import { DreamGymError } from '../core/errors.ts';

/** The task pool was written by a newer dreamgym. */
export class TaskPoolSchemaError extends DreamGymError {
  override name = 'TaskPoolSchemaError';
}

/** `--tasks` names something that is neither a task-pool file nor a PostgreSQL URL. */
export class TaskPoolLocationError extends DreamGymError {
  override name = 'TaskPoolLocationError';
}

/** The database server behind a task-pool URL could not be reached or refused the connection. */
export class TaskPoolConnectionError extends DreamGymError {
  override name = 'TaskPoolConnectionError';
}
