import { join } from 'node:path';
import { z } from 'zod';
import { Profile } from '@shared/schemas/profile';
import { readJsonFile, writeJsonAtomic } from '../storage/atomic-file';
import { FileUpdates } from '../storage/file-lock';

const ProfilesFile = z.object({
  version: z.literal(1),
  activeProfileId: z.string().nullable(),
  profiles: z.array(Profile),
});
type ProfilesFile = z.infer<typeof ProfilesFile>;

const EMPTY: ProfilesFile = { version: 1, activeProfileId: null, profiles: [] };

/** Profiles without their secrets, in `profiles.json` in the data folder. Shared by the app and the CLI. */
export class ProfileStore {
  private readonly path: string;
  private readonly updates: FileUpdates;

  constructor(dataDir: string) {
    this.path = join(dataDir, 'profiles.json');
    this.updates = new FileUpdates(this.path);
  }

  async read(): Promise<ProfilesFile> {
    return (await readJsonFile(this.path, ProfilesFile)) ?? structuredClone(EMPTY);
  }

  /**
   * Read-modify-write holding the file's lock (the CLI may add a profile while the app edits one); a damaged file
   * makes `read` throw, so it is never overwritten.
   */
  update(change: (file: ProfilesFile) => ProfilesFile | void): Promise<ProfilesFile> {
    return this.updates.run(async () => {
      const current = await this.read();
      const next = change(current) ?? current;
      await writeJsonAtomic(this.path, ProfilesFile.parse(next));
      return next;
    });
  }
}
