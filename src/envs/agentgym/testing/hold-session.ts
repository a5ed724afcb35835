/**
 * A child process for the open-session tests: opens a session on the AgentGym webshop server at
 * argv[2], prints `ready <session>`, then per argv[3]:
 * - `wait`: stays alive until a signal ends it;
 * - `own-handler`: the same, with its own SIGTERM listener that only prints `handled SIGTERM`;
 * - `leave`: returns without closing the env, so the process ends when its event loop is empty.
 */
import { AgentGymWebShopEnv } from '../webshop-client.ts';

const [url, mode] = process.argv.slice(2);
if (!url || !mode) throw new Error('usage: hold-session.ts URL wait|own-handler|leave');

const env = new AgentGymWebShopEnv({ url });
const { info } = await env.reset({ seed: 0 });
if (mode === 'own-handler') process.on('SIGTERM', () => console.log('handled SIGTERM'));
if (mode !== 'leave') setInterval(() => undefined, 60_000);
console.log(`ready ${info.session}`);
