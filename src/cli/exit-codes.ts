/** Exit codes: 0 done; 1 usage or validation; 2 authentication, network or service (see README). */
export const EXIT = { ok: 0, usage: 1, service: 2 } as const;
