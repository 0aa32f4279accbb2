import type { SecretStore } from '@core';

/**
 * The keychain's twin, kept with the test helpers because only tests and test hosts use it: unit tests, the
 * end-to-end specs, the benchmark, and the browser test bridge (`npm run demo`), which must never write to the
 * keychain of the machine it runs on. Same interface as the OS keychain; nothing leaves the process.
 */
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
