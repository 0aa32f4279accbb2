import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A file Closebook ships in `resources/`: in the packaged app, Electron's resources folder (electron-builder copies
 * them there); from source, the compiled CLI or the development app, the project's own `resources/` folder, found by
 * walking up from this module (its depth differs between src/, out/cli and out/main).
 */
export function resourcePath(...parts: string[]): string {
  const packaged = (process as NodeJS.Process & { resourcesPath?: string }).resourcesPath;
  if (packaged && existsSync(join(packaged, ...parts))) return join(packaged, ...parts);
  for (let folder = __dirname; ; folder = dirname(folder)) {
    const candidate = join(folder, 'resources', ...parts);
    if (existsSync(join(folder, 'package.json')) && existsSync(candidate)) return candidate;
    if (dirname(folder) === folder) break;
  }
  throw new Error(`Closebook's resource ${parts.join('/')} is missing from this installation: reinstall Closebook.`);
}
