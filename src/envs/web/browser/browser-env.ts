import type { Browser, BrowserContext } from 'playwright-core';
import {
  ConfigError,
  EnvClosedError,
  EnvNotResetError,
  EpisodeEndedError,
  TaskError,
} from '../../../core/errors.ts';
import {
  copyObservation,
  type Observation,
  type StepInfo,
  type Task,
} from '../../../core/types.ts';
import type {
  Env,
  ResetOptions,
  ResetResult,
  StepResult,
  TaskSource,
  TaskSplit,
} from '../../env.ts';
import type { SiteProvider, SiteSession } from '../sites/site-provider.ts';
import { substituteSites, type WebArenaConfig, WebArenaConfigSchema } from '../webarena/config.ts';
import type { Evaluation, TaskEvaluator } from '../webarena/evaluator.ts';
import { parseWebAction } from './action.ts';
import type { FlattenOptions } from './ax-tree.ts';
import { BrowserEpisode, type EpisodeOptions, type ViewportMode } from './browser-episode.ts';
import { acquireSharedBrowser, type BrowserLease } from './shared-browser.ts';

/** WebArena's step limit. */
export const WEBARENA_MAX_STEPS = 30;

/** The sites, tasks, evaluator and browser settings of a browser env. */
export interface BrowserEnvOptions {
  /** Env family; tasks with another `env` are refused. E.g. `web:forum`, `webarena`. */
  name: string;
  /** Serves the sites each task names (built-in apps, or a user's WebArena deployment). */
  sites: SiteProvider;
  /** Tasks whose `spec` is a WebArena config (placeholders not substituted). */
  tasks: TaskSource;
  /** Split that `reset({ seed })` draws from. Default `train`. */
  split?: TaskSplit;
  /** Scores the final state when an episode ends (`stop`, or the step limit). */
  evaluate: TaskEvaluator;
  /** Steps per episode, invalid ones included (WebArena: 30). */
  maxSteps?: number;
  /**
   * A browser to run in; the env never closes it. Default: the process's shared Chromium
   * (launched on first reset, relaunched if it crashed, closed with the last env).
   */
  browser?: Browser;
  /** A navigation may take this long before it is stopped and reported. Default 30,000 ms. */
  navigationTimeoutMs?: number;
  /** How long filling, selecting or hovering may wait for its element. Default 5,000 ms. */
  actionTimeoutMs?: number;
  /** The window's size. Default 1280×720, as WebArena. */
  viewportSize?: { width: number; height: number };
  /**
   * What an observation shows: `whole` (default), the whole document; `visible`, only the nodes
   * in the viewport, as WebArena's experiments run (`current_viewport_only=True`), so `scroll`
   * changes what the agent sees and an element out of view cannot be named. Measured as WebArena
   * measures it (see docs/web-observation.md).
   */
  viewport?: ViewportMode;
  /** How the accessibility tree is flattened to text (default: WebArena's rules). */
  flatten?: Omit<FlattenOptions, 'idOf' | 'viewport'>;
  /**
   * Start each episode in the previous episode's browser context, cleaned (one tab, history,
   * cookies, cache and storage cleared; see `BrowserEpisode.reuse`), instead of a new
   * context: about half a simple episode's browser CPU. Never for a config with a
   * `storage_state`, a session that needs other context options, or after a crash. Default true;
   * false gives every episode a new context.
   */
  reuseContexts?: boolean;
}

/** What `info` carries when an episode ends. */
export interface EpisodeEndInfo extends StepInfo {
  /** Every configured check's outcome; `undecided` when a check needed an LLM judge and had none. */
  evaluation: Evaluation;
  /** The agent's `stop [answer]`; undefined when the step limit ended the episode. */
  answer: string | undefined;
  /** Set when the evaluator itself failed (the reward is then 0). */
  evaluationError?: string;
}

interface Running {
  task: Task;
  config: WebArenaConfig;
  session: SiteSession;
  episode: BrowserEpisode;
  /** The episode's context options, as JSON. */
  contextOptions: string;
  observation: Observation;
  steps: number;
  ended: 'terminated' | 'truncated' | undefined;
}

/** An ended episode's context, kept for the next episode ({@link BrowserEnvOptions.reuseContexts}). */
type Parked = Pick<Running, 'episode' | 'contextOptions'>;

/**
 * A real web env: Chromium driven by Playwright, speaking WebArena's interface. The observation is
 * the current tab's accessibility tree in WebArena's text form under the tab titles and URL
 * (`observation.actions` lists `click [id]`, `type [id] [<text>]`, … for the page): the whole
 * document, or with `viewport: 'visible'` only what is in view, as in WebArena's experiments.
 * Actions are WebArena's (see {@link parseWebAction}).
 *
 * `reset({ seed })` runs task `seed mod N` of the split's N tasks; `reset({ task })` runs that task.
 * Episodes: `reset` opens the task's sites (`sites.open(config)`), substitutes their URLs into the
 * config, gets a browser context that shows nothing of earlier episodes (the previous episode's
 * context, cleaned, or a new one: see {@link BrowserEnvOptions.reuseContexts}; the session
 * prepares it: headers, logins; the config's `storage_state` is loaded when its file exists) and
 * loads `start_url`. Each env has its own context in one browser shared by every env of the
 * process, so envs run in parallel.
 *
 * Ends: `stop [answer]` terminates (`terminated: true`). At `maxSteps` the episode is truncated
 * (`truncated: true`, `info.truncatedBy = 'time-limit'`) but, as in WebArena, the final state is
 * still evaluated with no answer: a url_match or program_html task can succeed without `stop`.
 * Either way `reward` is the evaluation's reward (0 or 1) and `info` holds the evaluation
 * ({@link EpisodeEndInfo}); so `finalReward` equals WebArena's score, while `isSuccess` (which
 * needs termination) counts only episodes the agent ended itself.
 *
 * An action that does not parse, or names an id not on the page, leaves the page untouched:
 * reward 0, `info.invalidAction` says why. Invalid steps count towards `maxSteps`. A navigation
 * that fails or times out shows as an `Error:` line of the next observation (and Chromium's error
 * page where it has one). `goto` is refused for URLs outside the task's sites. If the browser
 * crashes, `step` throws `BrowserCrashedError` and the next `reset` relaunches it.
 *
 * `close()` closes the context, disposes the site session, closes `sites` and releases the
 * shared browser (the last env to close it ends the Chromium process).
 */
export class BrowserEnv implements Env {
  readonly name: string;
  readonly maxSteps: number;
  private readonly sites: SiteProvider;
  private readonly taskSource: TaskSource;
  private readonly split: TaskSplit;
  private readonly evaluate: TaskEvaluator;
  private readonly ownBrowser: Browser | undefined;
  private readonly episodeOptions: EpisodeOptions;
  private lease: BrowserLease | undefined;
  private pool: Task[] | undefined;
  private running: Running | undefined;
  private parked: Parked | undefined;
  private readonly reuseContexts: boolean;
  private closed = false;

  constructor(options: BrowserEnvOptions) {
    this.name = options.name;
    this.sites = options.sites;
    this.taskSource = options.tasks;
    this.split = options.split ?? 'train';
    this.evaluate = options.evaluate;
    this.maxSteps = options.maxSteps ?? WEBARENA_MAX_STEPS;
    if (!Number.isInteger(this.maxSteps) || this.maxSteps < 1) {
      throw new RangeError(`BrowserEnv: maxSteps must be a positive integer, got ${this.maxSteps}`);
    }
    this.ownBrowser = options.browser;
    this.reuseContexts = options.reuseContexts ?? true;
    const viewport = options.viewport ?? 'whole';
    if (viewport !== 'whole' && viewport !== 'visible') {
      throw new ConfigError(
        `BrowserEnv: viewport is 'whole' or 'visible', got ${JSON.stringify(viewport)}; the window's size is viewportSize: { width, height }.`,
      );
    }
    this.episodeOptions = {
      navigationTimeoutMs: options.navigationTimeoutMs ?? 30_000,
      actionTimeoutMs: options.actionTimeoutMs ?? 5_000,
      viewportSize: options.viewportSize ?? { width: 1280, height: 720 },
      viewport,
      flatten: options.flatten ?? {},
    };
  }

  async reset(options: ResetOptions = {}): Promise<ResetResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const task = options.task ?? this.drawTask(options.seed ?? 0);
    const spec = this.checkTask(task);
    await this.endEpisode();
    const browser = await this.browser();
    const session = await this.sites.open(spec);
    try {
      const config = substituteSites(spec, session.urls);
      const { episode, warnings } = await this.beginEpisode(browser, config, session);
      const running: Running = {
        task,
        config,
        session,
        episode,
        contextOptions: contextKey(session),
        observation: { text: '', instruction: task.instruction },
        steps: 0,
        ended: undefined,
      };
      this.running = running;
      running.observation = await this.observe(running);
      return {
        observation: copyObservation(running.observation),
        info: { task, ...(warnings.length > 0 && { warnings }) },
      };
    } catch (error) {
      await this.endEpisode();
      await session.dispose();
      throw error;
    }
  }

  async step(action: string): Promise<StepResult> {
    if (this.closed) throw new EnvClosedError(this.name);
    const running = this.running;
    if (!running) throw new EnvNotResetError(this.name);
    if (running.ended) throw new EpisodeEndedError(this.name, running.ended);
    running.steps += 1;
    const atLimit = running.steps >= this.maxSteps;
    const parsed = parseWebAction(action);
    if (!parsed.ok) return this.finish(running, { invalidAction: parsed.reason }, atLimit);
    if (parsed.action.kind === 'stop') return this.end(running, 'terminated', parsed.action.answer);
    const outcome = await running.episode.run(parsed.action);
    if (!outcome.untouched) running.observation = await this.observe(running);
    const info: StepInfo = outcome.invalid ? { invalidAction: outcome.invalid } : {};
    return this.finish(running, info, atLimit);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.endEpisode();
    await this.parked?.episode.close();
    this.parked = undefined;
    await this.sites.close();
    await this.lease?.release();
    this.lease = undefined;
  }

  /** A step that did not end the episode, unless it reached the step limit. */
  private async finish(running: Running, info: StepInfo, atLimit: boolean): Promise<StepResult> {
    if (atLimit) return this.end(running, 'truncated', undefined, info);
    return {
      observation: copyObservation(running.observation),
      reward: 0,
      terminated: false,
      truncated: false,
      info,
    };
  }

  /** Ends the episode: evaluates the final state and reports it. */
  private async end(
    running: Running,
    how: 'terminated' | 'truncated',
    answer: string | undefined,
    stepInfo: StepInfo = {},
  ): Promise<StepResult> {
    running.ended = how;
    const info: EpisodeEndInfo = { ...stepInfo, evaluation: NOT_EVALUATED, answer };
    if (how === 'truncated') info.truncatedBy = 'time-limit';
    try {
      info.evaluation = await this.evaluate({
        config: running.config,
        page: running.episode.page,
        context: running.episode.context,
        answer,
      });
    } catch (error) {
      info.evaluationError = `the evaluator failed: ${(error as Error).message.split('\n')[0]}`;
    }
    return {
      observation: copyObservation(running.observation),
      reward: info.evaluation.reward,
      terminated: how === 'terminated',
      truncated: how === 'truncated',
      info,
    };
  }

  private async observe(running: Running): Promise<Observation> {
    const { text, actions } = await running.episode.observe();
    return { text, instruction: running.task.instruction, actions };
  }

  private async browser(): Promise<Browser> {
    if (this.ownBrowser) return this.ownBrowser;
    this.lease ??= acquireSharedBrowser();
    return this.lease.browser();
  }

  /**
   * The episode's context: the parked one cleaned, when it may be reused and cleaning it works,
   * else a new one (the parked one closed).
   */
  private async beginEpisode(
    browser: Browser,
    config: WebArenaConfig,
    session: SiteSession,
  ): Promise<{ episode: BrowserEpisode; warnings: string[] }> {
    const parked = this.parked;
    this.parked = undefined;
    const prepare = (context: BrowserContext) => session.prepare(context);
    if (
      parked &&
      parked.contextOptions === contextKey(session) &&
      !config.storage_state &&
      parked.episode.context.browser() === browser
    ) {
      const episode = await BrowserEpisode.reuse(
        parked.episode,
        config,
        session.urls,
        prepare,
        this.episodeOptions,
      ).catch(() => undefined);
      if (episode) return { episode, warnings: [] };
    }
    // Not reusable, or cleaning it failed: a new context (which names the problem if the browser
    // itself is gone).
    await parked?.episode.close();
    return BrowserEpisode.start(
      browser,
      config,
      session.urls,
      prepare,
      this.episodeOptions,
      session.contextOptions,
    );
  }

  /** Ends the running episode: its site session is disposed, its context parked or closed. */
  private async endEpisode(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    if (!running) return;
    const connected = running.episode.context.browser()?.isConnected() ?? false;
    if (this.reuseContexts && connected && !this.closed) {
      this.parked = running;
    } else {
      await running.episode.close();
    }
    await running.session.dispose();
  }

  private drawTask(seed: number): Task {
    this.pool ??= this.taskSource.tasks(this.split);
    if (this.pool.length === 0) {
      throw new TaskError(
        `${this.name}: the ${this.split} split has no tasks; pass reset({ task }) or choose another split.`,
      );
    }
    // Seeds sweep the split in order (seed i runs task i mod N): evaluating seeds 0..N-1 covers
    // every task once, as WebArena's runs go through its task ids.
    const index = ((Math.trunc(seed) % this.pool.length) + this.pool.length) % this.pool.length;
    return this.pool[index] as Task;
  }

  private checkTask(task: Task): WebArenaConfig {
    if (task.env !== this.name) {
      throw new TaskError(
        `task ${task.id} is for env "${task.env}", not "${this.name}"; run it in a ${task.env} env.`,
      );
    }
    const parsed = WebArenaConfigSchema.safeParse(task.spec);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.length ? issue.path.map(String).join('.') : 'spec';
      throw new TaskError(
        `task ${task.id} has no valid WebArena config as its spec (${field}: ${issue?.message ?? 'missing'}); ` +
          'a browser task needs task_id, sites, start_url, intent and eval (see WebArena config_files/).',
      );
    }
    return parsed.data;
  }
}

/** The evaluation reported when the evaluator threw. */
const NOT_EVALUATED: Evaluation = { reward: 0, checks: [], undecided: false };

/** A session's context options as a key: episodes may share a context only when they agree. */
function contextKey(session: SiteSession): string {
  return JSON.stringify(session.contextOptions ?? {});
}
