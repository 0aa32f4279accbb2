import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contentSecurityPolicy } from '@main/window';
import { expect, startBridge, test } from './fixtures';
import { ClosebookPage } from './pages';

// The browser bridge's own door, in a real browser: these tests open the printed link themselves, so they start
// their bridge without the fixture's sign-in.

test('the printed link opens the app once, keeps no token in the address bar, and leaves a session only this browser holds', async ({ page, browser }) => {
  const host = await startBridge();
  try {
    const { url, link } = host.harness;
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(link);
    expect(page.url()).toBe(`${url}/`);
    const app = new ClosebookPage(page);
    await app.startDemo(); // channel calls and the event stream work with the session
    // The page asked for nothing that is not there (a browser asks for /favicon.ico unless the page names its icon).
    expect(consoleErrors).toEqual([]);
    expect(await page.locator('link[rel="icon"]').evaluate((link: HTMLLinkElement) => link.href)).toMatch(/^(data:image\/png|http:.*\.png$)/);
    const cookies = await page.context().cookies();
    expect(cookies.map(({ name, httpOnly, sameSite, path }) => ({ name, httpOnly, sameSite, path }))).toEqual([
      { name: `closebook-session-${new URL(url).port}`, httpOnly: true, sameSite: 'Strict', path: '/' },
    ]);
    expect([host.harness.token, new URL(link).searchParams.get('token')]).not.toContain(cookies[0]?.value);

    // Another browser (or someone who found the link in a history or a terminal) gets a page that says what to do.
    const other = await browser.newContext();
    const stranger = await other.newPage();
    await stranger.goto(link);
    await expect(stranger.locator('body')).toContainText('This Closebook link works once and has been used');
    await expect(stranger.locator('body')).toContainText(`go to ${url}/`);
    // And the app's page, which anyone may load, calls nothing for it, and says why.
    await stranger.goto(url);
    await expect(stranger.getByText('Open the link it printed at start, or restart it for a new one.').first()).toBeVisible();
    expect(
      await stranger.evaluate(
        async () => (await fetch('/bridge/invoke/app:info', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).status,
      ),
    ).toBe(403);
    await other.close();
  } finally {
    await host.stop();
  }
});

test("a page of another loopback port shares the browser's cookies, yet can call, read and spend nothing", async ({ page }) => {
  const host = await startBridge();
  // A page served from another port on the same address: to the browser, the same site (cookies go along).
  const hostile: Server = createServer((_request, response) =>
    response.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>Another local page</title>'),
  );
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  try {
    const { url, link, service } = host.harness;
    await page.goto(link);
    const download = await service.handlers['consumption:template']({ format: 'csv' });
    if (download.kind !== 'download') throw new Error(`expected a download, got ${download.kind}`);

    const hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`;
    const attacker = await page.context().newPage();
    await attacker.goto(hostileUrl);
    expect((await page.context().cookies(hostileUrl)).map((cookie) => cookie.name)).toContain(`closebook-session-${new URL(url).port}`);
    const results = await attacker.evaluate(
      async ({ bridge, file }) => {
        const outcome = (promise: Promise<unknown>) =>
          promise.then(
            (value) => String(value),
            () => 'failed',
          );
        // A request no CORS rule stops, with no Referer either: only Sec-Fetch-Site says where it comes from.
        await new Promise((resolve) => {
          const image = new Image();
          image.referrerPolicy = 'no-referrer';
          image.onload = image.onerror = resolve;
          image.src = `${bridge}${file}`;
        });
        return {
          read: await outcome(
            fetch(`${bridge}/bridge/invoke/profiles:list`, {
              method: 'POST',
              credentials: 'include',
              headers: { 'Content-Type': 'application/json' },
              body: '{}',
            }).then((response) => response.text()),
          ),
          blind: await outcome(
            fetch(`${bridge}/bridge/invoke/demo:start`, { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' }).then(
              (response) => response.type,
            ),
          ),
          events: await new Promise<string>((resolve) => {
            const source = new EventSource(`${bridge}/bridge/events`, { withCredentials: true });
            source.onopen = () => resolve('open');
            source.onerror = () => {
              source.close();
              resolve('refused');
            };
          }),
        };
      },
      { bridge: url, file: download.url },
    );
    expect(results).toEqual({ read: 'failed', blind: 'opaque', events: 'refused' });
    // The blind call did nothing, and the image did not spend the download: it is still there for the app's page.
    expect(await service.handlers['profiles:list']({})).toEqual(expect.objectContaining({ profiles: [] }));
    expect(await page.evaluate(async (file) => (await fetch(file)).status, download.url)).toBe(200);
  } finally {
    await new Promise((resolve) => hostile.close(resolve));
    await host.stop();
  }
});

test('the page carries the strict policy twice, as its header and its own <meta>, both from the one the main process sends', async ({ page }) => {
  const host = await startBridge();
  try {
    const response = await page.goto(host.harness.url);
    expect(response?.headers()['content-security-policy']).toBe(contentSecurityPolicy());
    const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
    expect(meta).toBe(contentSecurityPolicy({ meta: true }));
    expect(meta).not.toMatch(/unsafe|%/);
  } finally {
    await host.stop();
  }
});
