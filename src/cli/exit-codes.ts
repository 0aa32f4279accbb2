/**
 * Exit codes: 0 done; 1 usage or validation; 2 authentication, network or service; 5 a control of the month close
 * refused the step (see README). 3 and 4 belong to the consumption and check commands.
 */
export const EXIT = { ok: 0, usage: 1, service: 2, control: 5 } as const;
