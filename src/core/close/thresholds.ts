import { join } from 'node:path';
import { z } from 'zod';
import { CheckThresholds } from '@shared/schemas/month-close';
import { readJsonFile, writeJsonAtomic } from '../storage/atomic-file';
import { FileUpdates } from '../storage/file-lock';
import { DEFAULT_THRESHOLDS } from './billing-checks';

const ThresholdsFile = z.object({ version: z.literal(1), profiles: z.record(z.string(), CheckThresholds) });

/** The check thresholds each profile set (a Broker's margins differ from another's), in `check-thresholds.json`. */
export class ThresholdStore {
  private readonly path: string;
  private readonly writes: FileUpdates;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'check-thresholds.json');
    this.writes = new FileUpdates(this.path);
  }

  async get(profileId: string): Promise<CheckThresholds> {
    return (await readJsonFile(this.path, ThresholdsFile))?.profiles[profileId] ?? DEFAULT_THRESHOLDS;
  }

  set(profileId: string, thresholds: CheckThresholds): Promise<CheckThresholds> {
    return this.writes.run(async () => {
      const file = (await readJsonFile(this.path, ThresholdsFile)) ?? { version: 1 as const, profiles: {} };
      await writeJsonAtomic(this.path, { ...file, profiles: { ...file.profiles, [profileId]: thresholds } });
      return thresholds;
    });
  }
}
