import type { SecretStore } from './ports';

/** The keychain's twin for tests and the browser test bridge: same interface, nothing leaves the process. */
export class MemorySecretStore implements SecretStore {
  private readonly entries = new Map<string, string>();

  async get(account: string): Promise<string | null> {
    return this.entries.get(account) ?? null;
  }

  async set(account: string, secret: string): Promise<void> {
    this.entries.set(account, secret);
  }

  async delete(account: string): Promise<void> {
    this.entries.delete(account);
  }

  /** For tests: how many accounts hold a secret. */
  get size(): number {
    return this.entries.size;
  }
}
