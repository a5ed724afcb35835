import type { SessionStore } from './sessions.ts';
import type { TaskPicker } from './tasks.ts';

/** What every protocol face of the server shares. */
export interface ServerContext {
  sessions: SessionStore;
  tasks: TaskPicker;
  /** The served env, as `/metadata` and greetings describe it. */
  env: { name: string; description: string };
  /** Where problems that fail no request go (a recording hook that threw, an env bug). */
  warn: (message: string) => void;
}
