import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Trajectory } from '../core/types.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { encodeTrajectory } from '../data/trajectory-format.ts';
import { envEntry } from '../envs/registry.ts';
import { SqliteReplayBuffer } from '../replay/sqlite-buffer.ts';
import { readRunFolder } from './run-folder.ts';
import { sketchTrajectory } from './testing/episodes.ts';
import { viewTarget } from './view-target.ts';
import { createViewer, type Viewer } from './viewer.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'dg-viewer-'));
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

const WEB_PAGE = [
  'Tab 0 (current): Forum',
  'URL: http://127.0.0.1:1/',
  '',
  "[1] RootWebArea 'Forum' focused: True",
  "\t[2] link 'Home'",
  "\t[3] navigation ''",
  "\t\t[4] link 'Submit'",
].join('\n');

/** A real and a synthetic episode of task shop/1, a synthetic one of shop/2, a hostile action. */
function episodes(): Trajectory[] {
  return [
    sketchTrajectory('real-1', {
      steps: [
        { action: 'search[red mug]', text: 'Page 1\n[B01]\nRed mug\n$9.99' },
        { action: 'click[B01]', text: 'Red mug\n[Buy Now]' },
        { action: 'click[Buy Now]', text: 'Thank you', reward: 1, terminated: true },
      ],
    }),
    sketchTrajectory('syn-1', {
      provenance: 'synthetic',
      policyId: 'grpo',
      steps: [
        {
          action: 'search[red mug]',
          text: 'Page 1\n[B01]\nBlue mug\n$9.99',
          reasoning: 'the model guessed a blue mug',
          info: { reasoning: 'the model guessed a blue mug', demonstrations: ['real-1#0'] },
        },
        {
          action: 'click[B01]',
          text: 'Blue mug\n[Buy Now]',
          truncated: true,
          info: { truncatedBy: 'model-error' },
        },
      ],
    }),
    sketchTrajectory('syn-2', {
      provenance: 'synthetic',
      taskId: 'shop/2',
      instruction: 'find the forum',
      initial: WEB_PAGE,
      steps: [{ action: '<script>alert(1)</script>', text: WEB_PAGE, reward: 1, terminated: true }],
    }),
  ];
}

async function text(viewer: Viewer, path: string, init?: RequestInit) {
  const answer = await viewer.app.request(path, init);
  return { status: answer.status, body: await answer.text(), headers: answer.headers };
}

describe('dreamgym view over a replay buffer', () => {
  let dir: string;
  let path: string;
  let viewer: Viewer;
  let before: string;

  beforeAll(async () => {
    dir = tempDir();
    path = join(dir, 'buffer.db');
    const buffer = SqliteReplayBuffer.open({ path });
    await buffer.add(episodes());
    await buffer.close();
    before = sha(path);
    viewer = await createViewer({ target: viewTarget(path), pollMs: 0 });
  });

  afterAll(() => viewer.close());

  it('lists episodes with filters, counts and the end reason of each', async () => {
    const all = await text(viewer, '/episodes');
    expect(all.status).toBe(200);
    expect(all.body).toContain('<strong>3</strong> of 3 episodes');
    const failures = await text(viewer, '/episodes?provenance=synthetic&outcome=failure');
    expect(failures.body).toContain('<strong>1</strong> of 3 episodes');
    expect(failures.body).toContain('data-id="syn-1"');
    expect(failures.body).not.toContain('data-id="real-1"');
    expect(failures.body).toContain('>model-error<');
    expect(failures.body).toContain('<option value="synthetic" selected>synthetic (1)</option>');
    // The one real episode succeeded: no real failure to choose.
    expect(failures.body).not.toContain('<option value="real-offline"');
  });

  it('shows one episode step by step, with the model reasoning once and a web tree folded by node', async () => {
    const episode = await text(viewer, '/episodes/syn-1');
    expect(episode.body.match(/<section class="step"/g)).toHaveLength(2);
    expect(episode.body).toContain('experience model&#39;s reasoning');
    expect(episode.body).not.toContain('policy&#39;s reasoning');
    expect(episode.body).toContain('truncated: model-error');
    expect(episode.body).toContain('id="open-compare"');
    expect(episode.body).toContain('<a href="/episodes/real-1#step-1">real-1… step 1</a>');

    const web = await text(viewer, '/episodes/syn-2');
    expect(web.body).toContain(
      '<details open><summary>[1] RootWebArea &#39;Forum&#39; focused: True</summary><div class="leaf">[2] link &#39;Home&#39;</div><details open><summary>[3] navigation &#39;&#39;</summary>',
    );
    // Text from episodes is escaped, never markup.
    expect(web.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(web.body).not.toContain('<script>alert(1)');
    expect((await text(viewer, '/episodes/nope')).status).toBe(404);
  });

  it('puts a synthetic episode beside a real one of its task with a diff of their next states', async () => {
    const page = await text(viewer, '/compare?task=shop%2F1');
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      '<div class="removed">Red mug</div><div class="added">Blue mug</div>',
    );
    expect(page.body.match(/class="compare-step same-action"/g)).toHaveLength(2);
    const none = await text(viewer, '/compare?task=shop%2F2');
    expect(none.status).toBe(404);
    expect(none.body).toContain('tasks with real and synthetic');
  });

  it('is read-only: refuses writes, and the buffer file is unchanged', async () => {
    const post = await text(viewer, '/episodes', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.body).toContain('read-only');
    expect(sha(path)).toBe(before);
  });

  it('shows episodes added to the buffer while it is open', async () => {
    const buffer = SqliteReplayBuffer.open({ path });
    await buffer.add([
      sketchTrajectory('real-2', {
        steps: [{ action: 'search[x]', text: 'none', terminated: true }],
      }),
    ]);
    await buffer.close();
    expect((await text(viewer, '/episodes')).body).toContain('<strong>4</strong> of 4 episodes');
  });
});

describe('dreamgym view over a trajectory file', () => {
  it('reads it, skips and reports malformed lines, and follows lines appended later', async () => {
    const path = join(tempDir(), 'episodes.jsonl');
    const [real, synthetic, web] = episodes() as [Trajectory, Trajectory, Trajectory];
    writeFileSync(
      path,
      `${encodeTrajectory(real)}\n{"not": "a trajectory"}\n${encodeTrajectory(synthetic)}\n`,
    );
    const viewer = await createViewer({ target: viewTarget(path), pollMs: 0 });
    try {
      const list = await text(viewer, '/episodes');
      expect(list.body).toContain('<strong>2</strong> of 2 episodes');
      expect(list.body).toContain('class="warn">line 2:');
      expect((await text(viewer, '/episodes/syn-1')).body).toContain('Blue mug');
      // A line still being written is read once it is whole.
      const line = encodeTrajectory(web);
      appendFileSync(path, line.slice(0, 40));
      expect((await text(viewer, '/episodes')).body).toContain('<strong>2</strong> of 2 episodes');
      appendFileSync(path, `${line.slice(40)}\n`);
      expect((await text(viewer, '/episodes')).body).toContain('<strong>3</strong> of 3 episodes');
      expect((await text(viewer, '/episodes/syn-2')).status).toBe(200);
    } finally {
      await viewer.close();
    }
  });
});

describe('dreamgym view over a run folder', () => {
  const metrics = (iteration: number, success: number) =>
    `${JSON.stringify({
      iteration,
      seconds: { collect: 1, advantages: 0, update: 1, evaluate: 1 },
      rollout: {
        episodes: 9,
        steps: 90,
        successRate: success,
        meanReward: success,
        informativeGroups: 0.5,
      },
      update: {
        policyLoss: 0,
        valueLoss: 0,
        entropy: 1,
        approxKl: 0.001,
        clipFraction: 0,
        gradNorm: 1,
        minibatches: 1,
        explainedVariance: 0,
      },
      envSteps: 90 * (iteration + 1),
      eval: { episodes: 6, successRate: success, meanReward: success, meanSteps: 5 },
    })}\n`;

  it('shows curves, curriculum, the demo table, config and versions, and tells live pages of changes', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'synthetic'));
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ env: 'webshop', seed: 7 }));
    writeFileSync(join(dir, 'versions.json'), JSON.stringify({ node: 'v20', hono: '4' }));
    writeFileSync(join(dir, 'synthetic', 'metrics.jsonl'), metrics(0, 0.25));
    writeFileSync(
      join(dir, 'curriculum.json'),
      JSON.stringify({
        stats: [
          {
            iteration: 0,
            poolSize: 10,
            generatedTasks: 2,
            newTasks: 2,
            tasksPlayed: 3,
            informativeShare: 0.5,
            meanVariance: 0.1,
            meanReward: 0.3,
          },
        ],
      }),
    );
    const estimate = { mean: 0.5, low: 0.3, high: 0.7, n: 20 };
    writeFileSync(
      join(dir, 'results.json'),
      JSON.stringify({
        env: 'webshop',
        rows: [
          {
            method: 'DreamGym GRPO',
            success: estimate,
            reward: estimate,
            realInteractions: 0,
            syntheticInteractions: 1234,
            seconds: 5,
            curve: [],
            seeds: [{}],
          },
        ],
      }),
    );
    const viewer = await createViewer({ target: viewTarget(dir), pollMs: 20 });
    try {
      expect((await viewer.app.request('/')).headers.get('location')).toBe('/dashboard');
      const page = (await text(viewer, '/dashboard')).body;
      expect(page).toContain('id="success-curve"><svg');
      expect(page).toContain('synthetic: held-out real success');
      expect(page).toMatch(/<table id="curriculum">.*<td class="num">10<\/td>/s);
      expect(page).toContain('<td>DreamGym GRPO</td>');
      expect(page).toContain('1,234');
      expect(page).toContain('&quot;seed&quot;: 7');
      expect(page).toContain('<td>hono</td><td>4</td>');
      // The buffer is not written yet: the run has not got there, which the page says.
      expect(page).toContain('does not exist yet');

      const events = await viewer.app.request('/events');
      const reader = (events.body as ReadableStream<Uint8Array>).getReader();
      appendFileSync(join(dir, 'synthetic', 'metrics.jsonl'), metrics(1, 0.5));
      let received = '';
      while (!received.includes('event: change')) {
        const { value, done } = await reader.read();
        if (done) break;
        received += new TextDecoder().decode(value);
      }
      expect(received).toContain('event: change');
      await reader.cancel();
      expect((await text(viewer, '/dashboard/live')).body).toContain(
        '<td class="num">2</td><td class="num">180</td>',
      );
    } finally {
      await viewer.close();
    }
  });
});

describe('a run folder with a metrics line of another shape', () => {
  it('lists the line as a problem and shows the iterations around it', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'synthetic'));
    const line = (iteration: number) =>
      JSON.stringify({
        iteration,
        seconds: { collect: 1, advantages: 0, update: 1, evaluate: 0 },
        rollout: { episodes: 4, steps: 9, successRate: 0.5, meanReward: 0.5 },
        update: { approxKl: 0.001 },
        envSteps: 9 * (iteration + 1),
      });
    writeFileSync(
      join(dir, 'synthetic', 'metrics.jsonl'),
      `${line(0)}\n{"iteration":1}\n[1,2]\n${line(2)}\n`,
    );
    const viewer = await createViewer({ target: viewTarget(dir), pollMs: 0 });
    try {
      const page = await text(viewer, '/dashboard');
      expect(page.status).toBe(200);
      expect(page.body).toContain('synthetic training: 2 iterations');
      expect(page.body).toContain(
        'class="warn">synthetic/metrics.jsonl line 2: not an iteration’s metrics (no number at envSteps, rollout.successRate, rollout.meanReward, update.approxKl); left out',
      );
      expect(page.body).toContain('class="warn">synthetic/metrics.jsonl line 3:');
    } finally {
      await viewer.close();
    }
  });
});

describe('a run folder while the run is going', () => {
  it('reads the curriculum from the run’s task pool (read-only) before curriculum.json exists', async () => {
    const dir = tempDir();
    const tasks = envEntry('webshop').tasks({}).tasks('train', 4);
    const pool = SqliteTaskPool.open({ path: join(dir, 'tasks.db') });
    await pool.add(tasks);
    await pool.recordGroups(0, [
      { taskId: tasks[0]?.id as string, reward: 1 },
      { taskId: tasks[0]?.id as string, reward: 0 },
      { taskId: tasks[1]?.id as string, reward: 0 },
    ]);
    const folder = readRunFolder(dir);
    expect(folder.problems).toEqual([]);
    expect(folder.curriculum).toEqual([
      expect.objectContaining({ iteration: 0, tasksPlayed: 2, informativeShare: 0.5 }),
    ]);
    // The run goes on writing; the next read sees it.
    await pool.recordGroups(1, [{ taskId: tasks[2]?.id as string, reward: 1 }]);
    expect(readRunFolder(dir).curriculum).toHaveLength(2);
    await pool.close();
  });
});

describe('dreamgym view access', () => {
  it('with a token, refuses requests without it and lets the printed link in by a cookie', async () => {
    const path = join(tempDir(), 'e.jsonl');
    writeFileSync(path, `${encodeTrajectory(episodes()[0] as Trajectory)}\n`);
    const viewer = await createViewer({ target: viewTarget(path), token: 's3cret', pollMs: 0 });
    try {
      const refused = await text(viewer, '/episodes');
      expect(refused.status).toBe(401);
      expect(refused.body).toContain('?token=');
      expect(
        (await text(viewer, '/episodes', { headers: { authorization: 'Bearer wrong' } })).status,
      ).toBe(401);
      expect(
        (await text(viewer, '/episodes', { headers: { authorization: 'Bearer s3cret' } })).status,
      ).toBe(200);
      const link = await viewer.app.request('/episodes?token=s3cret&outcome=success');
      expect(link.status).toBe(303);
      expect(link.headers.get('location')).toBe('/episodes?outcome=success');
      const cookie = (link.headers.get('set-cookie') ?? '').split(';')[0] as string;
      expect(link.headers.get('set-cookie')).toMatch(/HttpOnly.*SameSite=Strict/i);
      expect((await text(viewer, '/episodes', { headers: { cookie } })).status).toBe(200);
    } finally {
      await viewer.close();
    }
  });

  it('refuses a binary file rather than showing it as an empty trajectory file', () => {
    const dir = tempDir();
    const binary = join(dir, 'episodes.jsonl');
    writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0]));
    expect(() => viewTarget(binary)).toThrow(ConfigError);
    expect(() => viewTarget(binary)).toThrow(/episodes\.jsonl is not a trajectory file: .*binary/);
    const gzipped = join(dir, 'episodes.jsonl.gz');
    writeFileSync(gzipped, Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3]));
    expect(() => viewTarget(gzipped)).toThrow(/gzip-compressed.*gunzip/);
  });

  it('names what PATH may be when it does not exist', () => {
    expect(() => viewTarget('/no/such/run')).toThrow(ConfigError);
    expect(() => viewTarget('/no/such/run')).toThrow(
      /run folder .* replay buffer .* trajectory file/,
    );
  });
});
