import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { SCRIPT, STYLE } from './assets.ts';
import { BufferSource } from './buffer-source.ts';
import { EpisodeIndex } from './episode-index.ts';
import type { EpisodeSource } from './episode-source.ts';
import { type Html, html } from './html.ts';
import { JsonlSource } from './jsonl-source.ts';
import { chooseComparison, comparePage } from './pages/compare-page.ts';
import { dashboardLive, dashboardPage } from './pages/dashboard-page.ts';
import { episodePage } from './pages/episode-page.ts';
import { episodesPage } from './pages/episodes-page.ts';
import { layout } from './pages/layout.ts';
import { RunFolderReader, runFolderStamp } from './run-folder.ts';
import { requireToken } from './token.ts';
import type { ViewTarget } from './view-target.ts';

/** What a viewer shows and who may see it. */
export interface ViewerOptions {
  target: ViewTarget;
  /** When set, every request needs it (see `requireToken`). */
  token?: string;
  /** How often live pages check for new episodes and changed run files, ms. Default 1,000. */
  pollMs?: number;
}

/** A viewer's web app and what it reads. */
export interface Viewer {
  /** The hono app: `app.request()` in tests, served by `listenViewer`. */
  app: Hono;
  index: EpisodeIndex;
  /** Reads episodes added to the source since the last refresh. */
  refresh(): Promise<void>;
  /** Stops live updates and closes the source. */
  close(): Promise<void>;
}

/**
 * `dreamgym view`: a read-only web app over a run folder, a replay buffer or a trajectory file.
 * Server-rendered pages: the episode list (filters with counts, sorting, paging), one episode
 * step by step, a synthetic episode beside a real one of the same task with a diff of their next
 * states, and for run folders a dashboard of learning curves, curriculum statistics, the demo's
 * table, config and versions that follows the run live (server-sent events). Every request but
 * GET and HEAD is refused: nothing the viewer serves can change what it reads.
 */
export async function createViewer(options: ViewerOptions): Promise<Viewer> {
  const { target } = options;
  const pollMs = options.pollMs ?? 1000;
  const source: EpisodeSource =
    target.kind === 'trajectories'
      ? new JsonlSource(target.path)
      : target.kind === 'buffer'
        ? new BufferSource(target.path)
        : new BufferSource(target.buffer, { waitForFile: true });
  const index = new EpisodeIndex();
  let reading: Promise<void> | undefined;
  let lastRead = 0;
  const refresh = () => {
    reading ??= source
      .poll()
      .then((found) => {
        index.add(found);
        lastRead = Date.now();
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  /** Pages read new episodes at most once per poll interval. */
  const fresh = () => (Date.now() - lastRead >= pollMs ? refresh() : Promise.resolve());
  await refresh();

  const run = target.kind === 'run' ? target.dir : undefined;
  const runFolder = run === undefined ? undefined : new RunFolderReader(run);
  const viewing = target.kind === 'run' ? `run folder ${target.dir}` : source.description;
  const page = (title: string, body: Html) =>
    layout(
      { title, viewing, dashboard: run !== undefined, warnings: source.warnings() },
      body,
    ).toString();
  const streams = new Set<AbortController>();

  const app = new Hono();
  app.use(async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      return c.text('dreamgym view is read-only: it answers GET requests only.', 405, {
        Allow: 'GET, HEAD',
      });
    }
    return next();
  });
  if (options.token !== undefined) app.use(requireToken(options.token));
  app.get('/assets/view.css', (c) =>
    c.body(STYLE, 200, { 'Content-Type': 'text/css; charset=utf-8' }),
  );
  app.get('/assets/view.js', (c) =>
    c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/', (c) => c.redirect(run ? '/dashboard' : '/episodes', 302));
  app.get('/episodes', async (c) => {
    await fresh();
    return c.html(page('Episodes', episodesPage(index, new URL(c.req.url).searchParams)));
  });
  app.get('/episodes/:id', async (c) => {
    await fresh();
    const id = c.req.param('id');
    const trajectory = await source.episode(id);
    if (!trajectory)
      return c.html(page('Not found', notFound(`no episode ${id} in ${viewing}.`)), 404);
    return c.html(page(trajectory.task.instruction, episodePage(trajectory, index)));
  });
  app.get('/compare', async (c) => {
    await fresh();
    const params = new URL(c.req.url).searchParams;
    const chosen = await chooseComparison(index, params, (id) => source.episode(id));
    if (!chosen) {
      return c.html(
        page(
          'Nothing to compare',
          notFound(
            `task ${params.get('task') ?? '(none named)'} has no real and synthetic episodes to put side by side; list the tasks that have both with the "tasks with real and synthetic" filter.`,
          ),
        ),
        404,
      );
    }
    return c.html(page('Synthetic beside real', comparePage(chosen)));
  });
  app.get('/dashboard', async (c) => {
    if (!runFolder)
      return c.html(
        page('No dashboard', notFound('dashboards are for run folders; this is not one.')),
        404,
      );
    await fresh();
    return c.html(page('Dashboard', await dashboardPage(runFolder.read(), index)));
  });
  app.get('/dashboard/live', async (c) => {
    if (!runFolder) return c.text('not a run folder', 404);
    await fresh();
    return c.html((await dashboardLive(runFolder.read(), index)).toString());
  });
  app.get('/events', (c) =>
    streamSSE(c, async (stream) => {
      const stop = new AbortController();
      streams.add(stop);
      stream.onAbort(() => stop.abort());
      let last = run ? runFolderStamp(run) : '';
      let size = index.size;
      while (!stop.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
        if (stop.signal.aborted) break;
        await refresh();
        const stamp = run ? runFolderStamp(run) : '';
        if (stamp !== last || index.size !== size) {
          last = stamp;
          size = index.size;
          await stream.writeSSE({ event: 'change', data: String(index.size) });
        }
      }
      streams.delete(stop);
    }),
  );
  app.notFound((c) =>
    c.html(
      page(
        'Not found',
        notFound(`no page ${c.req.path}: see /episodes${run ? ' or /dashboard' : ''}.`),
      ),
      404,
    ),
  );
  app.onError((error, c) => c.html(page('Error', notFound(`${error.message}`)), 500));

  return {
    app,
    index,
    refresh,
    close: async () => {
      for (const stream of streams) stream.abort();
      await source.close();
    },
  };
}

function notFound(message: string): Html {
  return html`<h1>Not here</h1><p>${message}</p><p><a href="/episodes">all episodes</a></p>`;
}
