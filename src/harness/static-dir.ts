import { resolve } from 'node:path';

/** Where electron-vite builds the renderer, which the bridge serves unless told otherwise (`npm run demo` builds it first). */
export const BUILT_RENDERER_DIR = resolve(__dirname, '../../out/renderer');
