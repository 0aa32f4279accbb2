import { userInfo } from 'node:os';

/** What a person may do in a month's close: prepare (and review), approve (and reopen an approved month). */
export type CloseRole = 'preparer' | 'approver';

/**
 * Who is acting, as the place that knows them says: the OS account on a workstation; the database role with the team
 * ledger. Never text a person types — and no flag or environment variable in the product sets it.
 */
export interface Identity {
  user: string;
  roles: readonly CloseRole[];
  /** True with the team ledger, where a second person can sign in; a workstation alone has one. */
  teamLedger: boolean;
}

/** The port: asked at each step, so a sign-in (the team ledger) takes effect at once. */
export type IdentityPort = () => Promise<Identity>;

/** A workstation without a team ledger: the OS account, who may both prepare and approve (never the same month). */
export const workstationIdentity: IdentityPort = async () => ({ user: osUser(), roles: ['preparer', 'approver'], teamLedger: false });

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
