import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The specs serve the built renderer: fail early, with the fix, when it has not been built. */
export default function globalSetup(): void {
  if (!existsSync(join(process.cwd(), 'out', 'renderer', 'index.html'))) {
    throw new Error('The renderer is not built. Run `npm run build` before `npm run test:e2e`.');
  }
}
