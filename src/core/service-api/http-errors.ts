import { AppError } from '@shared/errors';

/** Connection errors that mean the request never left this machine, so even a POST may be sent again. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function requestNeverSent(error: unknown): boolean {
  const code = networkErrorCode(error);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

export function unreachable(host: string): AppError {
  return new AppError('network', `Cannot reach the service at ${host}. Check your network connection (or VPN) and try again.`);
}

export function timedOut(host: string, seconds: number): AppError {
  return new AppError('timeout', `The service at ${host} did not answer within ${seconds} seconds. Try again in a few minutes.`);
}

/**
 * A gateway's 502 or 504 to a request that changes something: the gateway may have passed it on before it failed
 * or gave up waiting, so it may have arrived, as a connection broken after sending.
 */
export function gatewayOutcomeUnknown(host: string, status: number): AppError {
  return new AppError(
    'outcome-unknown',
    `The service at ${host} answered HTTP ${status} (its gateway ${status === 504 ? 'gave up waiting for it' : 'could not get its answer'}) after the request was sent, so Closebook cannot tell whether the service received it. ` +
      'Check the service before sending it again.',
  );
}

/** A call its caller cancelled. */
export function cancelled(): AppError {
  return new AppError('cancelled', 'Cancelled.');
}

export function outcomeUnknown(host: string): AppError {
  return new AppError(
    'outcome-unknown',
    `The connection to ${host} broke after the request was sent, so Closebook cannot tell whether the service received it. ` +
      'Check the service before sending it again.',
  );
}

/** Reads what an error response says. The spec does not show the error body, so accept the common shapes. */
export function describeErrorBody(text: string): { message?: string; fields?: Record<string, string> } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const trimmed = text.trim();
    return trimmed && trimmed.length <= 200 && !trimmed.startsWith('<') ? { message: trimmed } : {};
  }
  if (!body || typeof body !== 'object') return {};
  const record = body as Record<string, unknown>;
  const message = ['message', 'detail', 'error_description', 'title', 'error']
    .map((key) => record[key])
    .find((value): value is string => typeof value === 'string' && value.trim() !== '');
  const fields: Record<string, string> = {};
  const errors = record.errors;
  if (errors && typeof errors === 'object' && !Array.isArray(errors)) {
    // ASP.NET validation problem details: { errors: { "Contact.Email": ["…"] } }
    for (const [key, value] of Object.entries(errors)) {
      const text = Array.isArray(value) ? value.filter((v) => typeof v === 'string').join(' ') : String(value);
      const path = key
        .split('.')
        .map((part) => part.charAt(0).toLowerCase() + part.slice(1))
        .join('.');
      if (text) fields[path] = text;
    }
  }
  return { ...(message ? { message } : {}), ...(Object.keys(fields).length ? { fields } : {}) };
}

export function errorForStatus(status: number, host: string, bodyText: string): AppError {
  const { message, fields } = describeErrorBody(bodyText);
  const said = message ? ` The service said: "${message.replace(/[.\s]+$/, '')}".` : '';
  if (status === 400 || status === 422) {
    // Name the first field problem: "One or more validation errors occurred" alone tells the user nothing.
    const first = fields ? Object.values(fields)[0] : undefined;
    return new AppError('validation', `The service refused the request: ${first ?? message ?? 'it is not valid'}`, fields);
  }
  if (status === 401) {
    return new AppError('auth', `The service no longer accepts this sign-in.${said} Check the profile's credentials and try again.`);
  }
  if (status === 403) {
    return new AppError('auth', `The service refused access (HTTP 403).${said} Check that the reseller ID and seller ID in the profile belong to this user.`);
  }
  if (status === 404) {
    return new AppError('not-found', `The service does not know this address (HTTP 404).${said} Check the base URL and IDs in the profile.`);
  }
  if (status === 410) {
    return new AppError('not-found', `The service no longer has what this address held (HTTP 410).${said} It will not come back by asking again.`);
  }
  if (status === 409) return new AppError('conflict', `The service refused the change because it conflicts with existing data.${said}`, fields);
  if (status === 429) return new AppError('rate-limited', `The service at ${host} is busy and asked Closebook to slow down. Try again in a minute.`);
  if (status >= 500) {
    return new AppError(
      'service',
      `The service at ${host} had a problem (HTTP ${status}).${said} Try again in a few minutes; if it keeps happening, contact the service's support.`,
    );
  }
  if (status === 408) return new AppError('timeout', `The service at ${host} gave up waiting for the request (HTTP 408). Try again in a minute.`);
  // Any other answer (a redirect Closebook does not follow, a 4xx it does not expect) will not change by asking
  // again: the workflow stops and says so, rather than retrying for ever.
  return new AppError(
    'refused',
    `The service at ${host} answered with HTTP ${status}, which Closebook does not expect here.${said} Check the profile's base URL; if it is right, contact the service's support.`,
  );
}

const OFFLINE_CODES = new Set(['network', 'timeout']);

/** The service could not be reached at all (as opposed to answering with an error). */
export function isOffline(error: unknown): error is AppError {
  return error instanceof AppError && OFFLINE_CODES.has(error.code);
}
