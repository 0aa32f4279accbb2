import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_RENDERER_DIR } from './static-dir';

describe('the browser bridge host', () => {
  it('serves the renderer electron-vite builds (out/renderer at the top of the project), as npm run demo expects', () => {
    expect(BUILT_RENDERER_DIR).toBe(join(process.cwd(), 'out', 'renderer'));
  });
});
