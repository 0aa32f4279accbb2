import { readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { UiSettings } from '@shared/contract';
import { writeJsonAtomic } from '../storage/atomic-file';
import { FileUpdates } from '../storage/file-lock';
import type { Logger } from '../ports/ports';

export const UI_SETTINGS_FILE = 'ui-settings.json';

/**
 * What the user set up in the screens (columns, hierarchy), in `ui-settings.json` in the data folder. A preference
 * is never worth an error: a damaged or unreadable file gives the defaults (a valid field is kept, a bad one falls
 * back to its default) and a warning in the log. Unknown fields are dropped. A file that is not JSON is set aside
 * (`ui-settings.damaged-….json`) when new settings are saved, never overwritten: it may be repaired by hand.
 */
export class UiSettingsStore {
  private readonly path: string;
  private readonly writes: FileUpdates;

  constructor(
    dataDir: string,
    private readonly log: Logger,
  ) {
    this.path = join(dataDir, UI_SETTINGS_FILE);
    this.writes = new FileUpdates(this.path);
  }

  async get(): Promise<UiSettings> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') this.log.warn('could not read the saved screen settings; using the defaults', { file: this.path, error: code ?? String(error) });
      return UiSettings.parse({});
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.log.warn('the saved screen settings are damaged (not JSON); using the defaults', { file: this.path });
      return UiSettings.parse({});
    }
    return this.fieldByField(json);
  }

  /** Saves the settings whole (the renderer sends them all) and returns them as kept. */
  async save(settings: UiSettings): Promise<UiSettings> {
    const kept = UiSettings.parse(settings);
    await this.writes.run(async () => {
      await this.setAsideIfDamaged();
      await writeJsonAtomic(this.path, kept);
    });
    return kept;
  }

  private async setAsideIfDamaged(): Promise<void> {
    const text = await readFile(this.path, 'utf8').catch(() => null);
    if (text === null) return;
    try {
      JSON.parse(text);
      return;
    } catch {
      const aside = `${this.path.replace(/\.json$/, '')}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
      await rename(this.path, aside);
      this.log.warn('the damaged screen settings were set aside, and the new ones saved', { file: aside });
    }
  }

  private fieldByField(json: unknown): UiSettings {
    const whole = UiSettings.safeParse(json);
    if (whole.success) return whole.data;
    const record: Record<string, unknown> = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
    const settings: Record<string, unknown> = UiSettings.parse({});
    const damaged: string[] = [];
    for (const [key, schema] of Object.entries(UiSettings.shape)) {
      const field = schema.safeParse(record[key]);
      if (field.success) settings[key] = field.data;
      else damaged.push(key);
    }
    this.log.warn('some saved screen settings are damaged; those use their defaults', { file: this.path, fields: damaged.join(', ') || 'top level' });
    return settings as UiSettings;
  }
}
