import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { isActionTemplate, type Observation } from '../../core/types.ts';
import { envEntry } from '../../envs/registry.ts';
import { addSiteOption, intOption, splitOption } from '../options.ts';

const HELP =
  'type an action (one of those listed, with your text in a template), its number, or :quit';

function show(observation: Observation): void {
  console.log(`\n${observation.text}\n`);
  const actions = observation.actions ?? [];
  actions.forEach((action, i) => {
    console.log(
      `  ${String(i + 1).padStart(2)}. ${action}${isActionTemplate(action) ? '   (type it with your text)' : ''}`,
    );
  });
}

export function playCommand(program: Command): void {
  addSiteOption(program.command('play'))
    .description('play one episode by hand in the terminal')
    .requiredOption(
      '--env <name>',
      'env to play, e.g. webshop or agentgym:webshop@http://HOST:PORT',
    )
    .option('--seed <n>', 'picks the task', intOption(0), 0)
    .option('--split <split>', 'task split: train or test', splitOption, 'test')
    .option('--catalog-size <n>', 'webshop: products in the generated catalog', intOption(10))
    .option('--catalog-seed <n>', 'webshop: catalog seed', intOption(0))
    .action(async (o) => {
      const env = envEntry(o.env).make({
        split: o.split,
        catalogSize: o.catalogSize,
        catalogSeed: o.catalogSeed,
      });
      // Read lines through the async iterator: unlike rl.question, it keeps piped input.
      const rl = createInterface({ input: process.stdin, terminal: false });
      const lines = rl[Symbol.asyncIterator]();
      try {
        let { observation, info } = await env.reset({ seed: o.seed });
        console.log(`task ${info.task.id}: ${observation.instruction}\n(${HELP})`);
        show(observation);
        let total = 0;
        for (let t = 1; ; t++) {
          process.stdout.write(`\n[${t}] > `);
          const next = await lines.next();
          if (next.done) {
            console.log('\n(input closed)');
            return;
          }
          const line = next.value.trim();
          if (line === ':quit' || line === ':q') return;
          if (line === '' || line === ':help') {
            console.log(HELP);
            continue;
          }
          const actions = observation.actions ?? [];
          const pick = /^\d+$/.test(line) ? actions[Number(line) - 1] : line;
          if (pick === undefined || isActionTemplate(pick)) {
            console.log(`no action ${line}; ${HELP}`);
            continue;
          }
          const result = await env.step(pick);
          total += result.reward;
          observation = result.observation;
          if (result.info.invalidAction) console.log(`invalid: ${result.info.invalidAction}`);
          else show(observation);
          if (result.terminated || result.truncated) {
            const how = result.terminated
              ? 'terminated'
              : `truncated (${result.info.truncatedBy ?? 'cut off'})`;
            console.log(`\nepisode ${how} after ${t} steps; reward ${total.toFixed(3)}`);
            const { invalidAction: _, truncatedBy: __, ...details } = result.info;
            if (Object.keys(details).length > 0) console.log(JSON.stringify(details, null, 2));
            return;
          }
        }
      } finally {
        rl.close();
        await env.close();
      }
    });
}
