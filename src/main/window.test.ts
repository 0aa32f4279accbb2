import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from './window';

describe('contentSecurityPolicy', () => {
  it('is strict: no inline or remote code, no eval, no framing', () => {
    const strict = contentSecurityPolicy();
    expect(strict).not.toMatch(/unsafe|\*|https?:/);
    expect(strict).toContain("default-src 'none'");
    expect(strict).toContain("script-src 'self'");
    expect(strict).toContain("frame-ancestors 'none'");
  });

  it("as the page's <meta>, leaves out only frame-ancestors, which a <meta> may not carry", () => {
    expect(contentSecurityPolicy({ meta: true })).toBe(contentSecurityPolicy().replace("; frame-ancestors 'none'", ''));
  });

  it("under Vite's dev server, allows inline scripts and styles and nothing else more", () => {
    const dev = contentSecurityPolicy({ viteDevServer: true });
    expect(dev).toContain("script-src 'self' 'unsafe-inline'");
    expect(dev).toContain("style-src 'self' 'unsafe-inline'");
    expect(dev.replaceAll(" 'unsafe-inline'", '')).toBe(contentSecurityPolicy());
  });
});
