import type { Logger } from './ports';

const SECRET_KEYS = /secret|password|token|authorization/i;

/** Logs to stderr; any detail whose key looks like a secret is masked, so a careless call cannot leak one. */
export function createStderrLogger(prefix = 'closebook'): Logger {
  const write = (level: string, message: string, details?: Record<string, unknown>) => {
    const safe = details ? Object.fromEntries(Object.entries(details).map(([key, value]) => [key, SECRET_KEYS.test(key) ? '***' : value])) : undefined;
    process.stderr.write(`${prefix} ${level}: ${message}${safe ? ` ${JSON.stringify(safe)}` : ''}\n`);
  };
  return { info: (message, details) => write('info', message, details), warn: (message, details) => write('warn', message, details) };
}
