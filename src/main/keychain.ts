import { AppError } from '@shared/errors';
import type { SecretStore } from '@core';

/** Keychain service name; each profile's secrets sit under account = profile id. */
export const KEYCHAIN_SERVICE = 'Closebook';

type Keytar = typeof import('keytar');

const NO_KEYCHAIN =
  'No OS keychain is available, so Closebook cannot store the API secret and password (it never writes them to a file). ' +
  'On Linux, install and unlock a Secret Service keyring such as GNOME Keyring or KWallet, then try again.';

/**
 * The only file that imports keytar. Every keychain failure becomes a 'keychain-unavailable' error whose message
 * says what to do; the underlying error text is not passed on, as it can echo what was being stored.
 */
export class KeytarSecretStore implements SecretStore {
  private keytar: Promise<Keytar> | null = null;

  constructor(private readonly service = KEYCHAIN_SERVICE) {}

  private load(): Promise<Keytar> {
    this.keytar ??= import('keytar').then((module) => ((module as { default?: Keytar }).default ?? module) as Keytar);
    return this.keytar;
  }

  private async call<T>(operation: (keytar: Keytar) => Promise<T>): Promise<T> {
    try {
      return await operation(await this.load());
    } catch {
      throw new AppError('keychain-unavailable', NO_KEYCHAIN);
    }
  }

  get(account: string): Promise<string | null> {
    return this.call((keytar) => keytar.getPassword(this.service, account));
  }

  set(account: string, secret: string): Promise<void> {
    return this.call((keytar) => keytar.setPassword(this.service, account, secret));
  }

  async delete(account: string): Promise<void> {
    await this.call((keytar) => keytar.deletePassword(this.service, account));
  }

  /** Accounts that hold a secret under this service, for tests and housekeeping. */
  accounts(): Promise<string[]> {
    return this.call(async (keytar) => (await keytar.findCredentials(this.service)).map((credential) => credential.account));
  }
}
