import type { FetchLike } from '@core';

const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

/**
 * The CLI's fetch: through the proxy that HTTPS_PROXY / HTTP_PROXY name, except for the hosts NO_PROXY lists (undici's
 * EnvHttpProxyAgent reads all of them, lower case too), and plain fetch when none is set. The desktop app needs none of
 * this: Electron's network stack uses the system's proxy settings. Extra CA certificates (a proxy that inspects TLS)
 * come from NODE_EXTRA_CA_CERTS, which Node reads itself.
 */
export function cliFetch(env: NodeJS.ProcessEnv = process.env): FetchLike {
  if (!PROXY_VARIABLES.some((name) => env[name])) return (input, init) => fetch(input, init);
  // undici is loaded at the first request, not at start: it costs every command about 130 ms.
  let proxied: Promise<FetchLike> | undefined;
  const load = async (): Promise<FetchLike> => {
    const { EnvHttpProxyAgent, fetch: proxiedFetch } = await import('undici');
    const dispatcher = new EnvHttpProxyAgent();
    return (input, init) => proxiedFetch(input, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
  };
  return async (input, init) => (await (proxied ??= load()))(input, init);
}
