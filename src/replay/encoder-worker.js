// Worker threads do not inherit a loader registered through tsx's API (as scripts/dreamgym-dev.js does),
// so the encoder worker registers tsx itself before loading its TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./encoder-worker.ts');
