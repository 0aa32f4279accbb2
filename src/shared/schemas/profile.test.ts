import { describe, expect, it } from 'vitest';
import { BaseUrl, Profile, ProfileFields } from './profile';

const fields = {
  name: 'P',
  baseUrl: 'https://billing.example.com',
  clientId: 'c',
  username: 'u',
  resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  sellerId: '',
};

describe("a profile's service address", () => {
  it('takes https anywhere and plain http only on this machine', () => {
    expect(BaseUrl.parse('https://billing.example.com/')).toBe('https://billing.example.com');
    expect(BaseUrl.parse('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010');
    expect(BaseUrl.parse('http://localhost:4010/api')).toBe('http://localhost:4010/api');
    expect(BaseUrl.parse('http://[::1]:4010')).toBe('http://[::1]:4010');
    for (const remote of ['http://billing.example.com', 'http://127.0.0.1.example.com', 'http://10.0.0.5', 'ftp://billing.example.com']) {
      const result = BaseUrl.safeParse(remote);
      expect(result.success, remote).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/https:\/\//);
    }
  });

  it('refuses a user name or password inside the address (the only way a secret could reach profiles.json)', () => {
    for (const url of ['https://user:secret@billing.example.com', 'https://user@billing.example.com']) {
      expect(BaseUrl.safeParse(url).error?.issues[0]?.message).toMatch(/user name or password/);
    }
  });

  it('limits the length of every field', () => {
    const huge = 'x'.repeat(5 * 1024 * 1024);
    for (const [field, value] of [
      ['name', huge],
      ['clientId', huge],
      ['username', huge],
      ['baseUrl', `https://e.com/${huge}`],
    ] as const) {
      const result = ProfileFields.safeParse({ ...fields, [field]: value });
      expect(result.success, field).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/at most/);
    }
  });

  it('keeps a name plain: no line break, tab or invisible direction mark (it heads lists, reports and file names)', () => {
    for (const name of ['Line\nBreak', 'Tab\there', 'Nordlys\u202Efdp.exe', 'Bell\u0007', 'C1\u0085']) {
      expect(
        ProfileFields.safeParse({ ...fields, name }).error?.issues.map((issue) => issue.message),
        JSON.stringify(name),
      ).toEqual(['must not hold a line break, a tab or another invisible character']);
    }
    expect(ProfileFields.parse({ ...fields, name: '  Nordlys Cloud – Åland (SE)  ' }).name).toBe('Nordlys Cloud – Åland (SE)');
    // A profile saved before the rule still loads, to be renamed or deleted.
    const saved = { ...fields, name: 'Tab\there', id: '00000000-0000-4000-8000-000000000001', kind: 'service', createdAt: '', updatedAt: '' };
    expect(Profile.parse(saved).name).toBe('Tab\there');
  });
});
