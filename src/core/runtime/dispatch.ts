import { channels, isChannelName, type Reply } from '@shared/contract';
import { AppError, validationError } from '@shared/errors';
import { plainIssues } from './plain-issues';
import type { Logger } from '../ports/ports';
import type { Service } from '../service';
import { errorMessage } from '@shared/error-message';

/**
 * One request from any host (Electron IPC, the browser bridge): the channel must exist, the input is parsed with
 * the contract's schema, the handler's output is parsed too, and every failure comes back as a value.
 */
export async function dispatch(service: Service, channel: unknown, rawInput: unknown, log: Logger): Promise<Reply<unknown>> {
  if (!isChannelName(channel)) return { ok: false, error: { code: 'validation', message: unknownChannel(channel) } };
  const spec = channels[channel];
  let input: ReturnType<typeof spec.input.safeParse>;
  try {
    input = spec.input.safeParse(rawInput ?? {}, { error: plainIssues });
  } catch {
    // A value no schema can even look at (a length that is no number, an object with no text form): refused, never thrown.
    return { ok: false, error: { code: 'validation', message: 'The request could not be read: it is not made of plain values. Nothing was done.' } };
  }
  if (!input.success) return { ok: false, error: validationError(input.error, 'The request').toShape() };
  try {
    const handler = service.handlers[channel] as (input: unknown) => Promise<unknown>;
    const output = spec.output.safeParse(await handler(input.data));
    if (!output.success) {
      log.warn('handler output failed its contract', { channel, issue: output.error.issues[0]?.message });
      return { ok: false, error: { code: 'internal', message: 'Closebook produced an unexpected answer. Please report this.' } };
    }
    return { ok: true, data: output.data };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error: error.toShape() };
    // Unknown errors may carry anything (URLs, bodies): the detail goes to the log only.
    log.warn('unexpected error in handler', { channel, error: errorMessage(error) });
    return { ok: false, error: { code: 'internal', message: 'Something went wrong inside Closebook. Please try again, and report it if it repeats.' } };
  }
}

/**
 * Names a channel that does not exist without converting what came (an object may have no string form, or be
 * nested too deep to print): text is quoted, cut short, anything else is named by its kind.
 */
function unknownChannel(channel: unknown): string {
  if (typeof channel !== 'string') {
    const kind =
      channel === undefined || channel === null
        ? 'none'
        : Array.isArray(channel)
          ? 'a list'
          : typeof channel === 'object'
            ? 'an object'
            : `a ${typeof channel}`;
    return `Unknown request: a request names its channel as text, and this one gave ${kind}.`;
  }
  const name = channel.length > 60 ? `${channel.slice(0, 57)}…` : channel;
  return `Unknown request "${name}".`;
}
