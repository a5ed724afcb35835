// Worker threads do not inherit a loader registered through tsx's API (as scripts/dreamgym-dev.js does),
// so the training worker registers tsx itself before loading its TypeScript. The package's build
// compiles dream-training-worker.ts to this name in dist/, where no loader is needed.
import { register } from 'tsx/esm/api';

register();
await import('./dream-training-worker.ts');
