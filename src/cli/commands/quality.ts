import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../core/errors.ts';
import { readTrajectories } from '../../data/trajectory-file.ts';
import { LlmExperienceModel } from '../../experience/llm/llm-model.ts';
import { llmFreeModel } from '../../experience/llm-free.ts';
import { makeLlmClient } from '../../pipeline/experience-model.ts';
import { envSetup, offlineData } from '../../pipeline/experiment.ts';
import { lensFor } from '../../pipeline/quality/lenses.ts';
import { runQuality } from '../../pipeline/quality/quality.ts';
import { qualityTable, writeQualityReport } from '../../pipeline/quality/quality-report.ts';
import { loadPolicy } from '../../policy/load.ts';
import { hasExpert } from '../../policy/registry.ts';
import { EXPERIENCE_HELP, experienceOption, intOption, probabilityOption } from '../options.ts';

/**
 * `dreamgym quality`: the quality of synthetic experience (the paper's Fig. 4) by LLM-free
 * proxies and an optional LLM judge, for the real env, the full model, − history and − retrieval.
 */
export function qualityCommand(program: Command): void {
  program
    .command('quality')
    .description(
      'score synthetic experience (consistency, diversity, informativeness, hallucination) against the real env, the full model, − history, − retrieval (when the model can begin an episode over an empty buffer) and (LLM model) − reasoning',
    )
    .option(
      '--env <name>',
      'env with a quality lens: webshop, household, web:forum or web:store (a real browser; a few seconds an episode), or a module of your own (./my-env.ts) whose entry exports lens',
      'webshop',
    )
    .option('--model <kind>', 'experience model: llm-free or llm', 'llm-free')
    .option('--experience <model>', `llm-free: ${EXPERIENCE_HELP}`, experienceOption, 'auto')
    .option('--llm-url <url>', 'llm model: OpenAI-compatible base URL')
    .option('--llm-model <name>', 'llm model: model name')
    .option('--gguf <path>', 'llm model: a local GGUF model instead of a server')
    .option('--judge-url <url>', 'LLM judge: OpenAI-compatible base URL (no judge without it)')
    .option('--judge-model <name>', 'LLM judge: model name')
    .option('--judge-gguf <path>', 'LLM judge: a local GGUF model instead of a server')
    .option('--judge-groups <n>', 'task groups the judge scores per row', intOption(1), 10)
    .option('--tasks <n>', 'held-out tasks (none in the offline data)', intOption(1), 30)
    .option('--group-size <n>', 'episodes per task', intOption(2), 4)
    .option('--offline-episodes <n>', 'offline expert episodes in the buffer', intOption(1), 500)
    .option('--epsilon <p>', "the offline expert's mistake rate", probabilityOption, 0.3)
    .option('--data <file>', 'offline data JSONL instead of collecting it')
    .option('--k <n>', 'demonstrations per synthetic step', intOption(1), 4)
    .option(
      '--policy <name>',
      "the fixed policy of every row: a name or a saved policy's folder (default: explorer for household, the expert with ε = 0.3 where the env has one, else random)",
    )
    .option('--seed <n>', 'seed of the episodes', intOption(0), 0)
    .option(
      '--out <dir>',
      'where quality.json, .md and the plot go (default runs/quality-<env>-<time>)',
    )
    .action(async (o, command: Command) => {
      if (o.model !== 'llm-free' && o.model !== 'llm')
        throw new ConfigError(`--model must be llm-free or llm, got "${o.model}".`);
      if (o.model === 'llm' && command.getOptionValueSource('experience') === 'cli')
        throw new ConfigError(
          '--experience picks the LLM-free model: drop it, or drop --model llm.',
        );
      if ((o.judgeUrl === undefined) !== (o.judgeModel === undefined))
        throw new ConfigError(
          'the judge needs both --judge-url and --judge-model (or --judge-gguf).',
        );
      if (o.model === 'llm' && !o.gguf && !(o.llmUrl && o.llmModel))
        throw new ConfigError('--model llm needs --llm-url and --llm-model, or --gguf.');
      lensFor(o.env);
      const outDir =
        o.out ?? join('runs', `quality-${o.env}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
      const started = performance.now();
      const log = (line: string) =>
        process.stderr.write(
          `[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`,
        );
      const setup = envSetup(o.env, { trainTasks: o.offlineEpisodes + o.tasks });
      const policyName =
        o.policy ?? (o.env === 'household' ? 'explorer' : hasExpert(o.env) ? 'expert' : 'random');
      const policy = await loadPolicy(policyName, { env: o.env, epsilon: 0.3, temperature: 1 });
      // Offline data from the expert where there is one, else from the rows' own policy.
      const offlinePolicy = hasExpert(o.env)
        ? undefined
        : await loadPolicy(policyName, { env: o.env, temperature: 1 });
      log(
        o.data
          ? `reading ${o.data}`
          : `collecting ${o.offlineEpisodes} offline episodes (${offlinePolicy?.id ?? 'expert'})`,
      );
      const offline = o.data
        ? await readTrajectories(o.data)
        : await offlineData(setup, {
            episodes: o.offlineEpisodes,
            epsilon: o.epsilon,
            seed: 1,
            ...(offlinePolicy && { policy: offlinePolicy }),
          });
      const seen = new Set(offline.map((t) => t.task.id));
      const tasks = setup.trainTasks.filter((t) => !seen.has(t.id)).slice(0, o.tasks);
      if (tasks.length < o.tasks)
        throw new ConfigError(
          `only ${tasks.length} train tasks are not in the offline data; pass fewer --tasks.`,
        );
      const llm = o.gguf ? { gguf: o.gguf } : { url: o.llmUrl, model: o.llmModel };
      const client =
        o.model === 'llm'
          ? await makeLlmClient({ ...llm, timeoutMs: 120_000, maxConcurrency: 8 })
          : undefined;
      const judgeLlm = o.judgeGguf
        ? { gguf: o.judgeGguf }
        : o.judgeUrl
          ? { url: o.judgeUrl, model: o.judgeModel }
          : undefined;
      const result = await runQuality({
        setup,
        offline,
        tasks,
        groupSize: o.groupSize,
        policy,
        k: o.k,
        seed: o.seed,
        model: (buffer) =>
          client
            ? new LlmExperienceModel({ llm: client })
            : llmFreeModel(o.env, buffer, { experience: o.experience }),
        ...(client && {
          withoutReasoning: () => new LlmExperienceModel({ llm: client, reasoning: false }),
        }),
        ...(judgeLlm && {
          judge: {
            llm: await makeLlmClient({ ...judgeLlm, timeoutMs: 120_000, maxConcurrency: 8 }),
            groups: o.judgeGroups,
          },
        }),
        onProgress: log,
      });
      await mkdir(outDir, { recursive: true });
      const report = await writeQualityReport(result, outDir);
      console.log(`\n${qualityTable(result)}\n`);
      console.log(
        `report: ${report}\nresults: ${join(outDir, 'quality.json')}\nplot: ${join(outDir, 'quality.png')}`,
      );
    });
}
