import { once } from 'node:events';
import type { Command } from 'commander';
import { WEB_APPS, webApp } from '../../envs/web/sites/apps.ts';
import { startWebApp } from '../../envs/web/sites/web-app.ts';
import { intOption } from '../options.ts';

export function serveSiteCommand(program: Command): void {
  program
    .command('serve-site')
    .description('serve one of the built-in web apps for a person to click through')
    .argument('<site>', `built-in web app: ${Object.keys(WEB_APPS).join(', ')}`)
    .option('--port <n>', 'port; 0 picks a free one', intOption(0, 65535), 7780)
    .option('--host <address>', 'interface to bind', '127.0.0.1')
    .option('--seed <n>', 'content seed: the same seed generates the same site', intOption(0), 0)
    .addHelpText(
      'after',
      '\nExample:\n  dreamgym serve-site forum --port 7780   # then open http://127.0.0.1:7780\n\n' +
        'A person sees the site state every episode starts from; changes made here last until Ctrl-C.\n' +
        'Episodes of web:NAME envs each get their own copy and never see these changes.',
    )
    .action(async (site: string, o) => {
      const definition = webApp(site);
      const app = await startWebApp(definition, { seed: o.seed, port: o.port, host: o.host });
      console.log(
        `serving ${definition.name} (stands in for WebArena's "${definition.site}"; seed ${o.seed}) at ${app.url}\nCtrl-C to stop.`,
      );
      const signal = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
      console.log(`\n${signal[0] ?? 'signal'}: stopping`);
      await app.close();
    });
}
