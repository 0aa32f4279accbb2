import { homedir } from 'node:os';
import { join } from 'node:path';

export const APP_NAME = 'Closebook';

/**
 * The folder Electron uses as `userData` for this app, computed without Electron so the CLI and the app share
 * profiles and saved data. `CLOSEBOOK_DATA_DIR` overrides it.
 */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.CLOSEBOOK_DATA_DIR) return env.CLOSEBOOK_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), APP_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', APP_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), APP_NAME);
}
