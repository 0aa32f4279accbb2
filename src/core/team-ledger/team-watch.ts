import type { Client } from 'pg';
import type { Logger } from '../ports/ports';
import type { TeamLedgerAddress } from './connection-policy';
import { clientConfig } from './team-session';
import { errorMessage } from '@shared/error-message';

/** How long a dropped listener waits before it signs in again: a server restart must not be hammered. */
const RECONNECT_MS = 10_000;

/**
 * Listens on the team ledger for colleagues' steps: every entry of a month's log (a review, a prepare, an approval,
 * a fetch shared) is announced by the schema's append_log with NOTIFY when it commits, and passed on here at once.
 * One session of its own, signed in again after a drop; a listener that cannot sign in only logs (the screens still
 * read the server on their own).
 */
export class TeamWatch {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly address: TeamLedgerAddress,
    private readonly password: string,
    private readonly onChange: (action: string) => void,
    private readonly log: Logger,
  ) {}

  start(): void {
    void this.listen();
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const { default: pg } = await import('pg');
    let config: Awaited<ReturnType<typeof clientConfig>>;
    try {
      config = await clientConfig(this.address, this.password);
    } catch (error) {
      this.log.warn('the team ledger cannot be listened to', { error: errorMessage(error) });
      return;
    }
    if (this.stopped) return;
    const client = new pg.Client(config);
    this.client = client;
    client.on('notification', (message) => {
      let action = 'changed';
      try {
        action = String((JSON.parse(message.payload ?? '{}') as { action?: unknown }).action ?? action);
      } catch {
        // a payload from another program on the channel: still a reason to read again
      }
      this.onChange(action);
    });
    client.on('error', () => this.again(client));
    client.on('end', () => this.again(client));
    try {
      await client.connect();
      await client.query('LISTEN closebook');
      // Stopped while signing in: this session is not kept.
      if (this.stopped) await client.end().catch(() => undefined);
    } catch (error) {
      this.log.warn('the team ledger cannot be listened to now; trying again', { error: errorMessage(error) });
      this.again(client);
    }
  }

  private again(client: Client): void {
    if (this.stopped || this.client !== client || this.retry) return;
    this.client = null;
    void client.end().catch(() => undefined);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.listen();
    }, RECONNECT_MS);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
