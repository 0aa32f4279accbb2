import { describe, expect, it } from 'vitest';
import { isLoopback, teamLedgerAddress } from './connection-policy';

describe('the team ledger connection policy', () => {
  it('checks the certificate of a server on another machine by default, and refuses an address that asks for less', () => {
    expect(teamLedgerAddress('postgresql://anna@ledger.example.com/closebook')).toEqual({
      host: 'ledger.example.com',
      port: 5432,
      database: 'closebook',
      user: 'anna',
      tls: 'verify-full',
      caFile: null,
    });
    expect(teamLedgerAddress('postgres://anna@10.0.0.5:6543/books?sslmode=verify-full&sslrootcert=/etc/closebook/ca.crt')).toMatchObject({
      port: 6543,
      tls: 'verify-full',
      caFile: '/etc/closebook/ca.crt',
    });
    for (const mode of ['disable', 'allow', 'prefer', 'require', 'verify-ca'])
      expect(() => teamLedgerAddress(`postgresql://anna@ledger.example.com/closebook?sslmode=${mode}`), mode).toThrow(
        /only with TLS and its certificate checked \(sslmode=verify-full\)/,
      );
  });

  it('lets a server on this machine go without TLS, and only there', () => {
    for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', '[::1]']) {
      expect(isLoopback(host.replace(/^\[|\]$/g, '')), host).toBe(true);
      expect(teamLedgerAddress(`postgresql://anna@${host}/closebook`).tls, host).toBe('none');
      expect(teamLedgerAddress(`postgresql://anna@${host}/closebook?sslmode=verify-full`).tls, host).toBe('verify-full');
    }
    for (const host of ['128.0.0.1', '10.0.0.1', 'localhost.example.com', '[::2]', 'ledger'])
      expect(isLoopback(host.replace(/^\[|\]$/g, '')), host).toBe(false);
    expect(() => teamLedgerAddress('postgresql://anna@127.0.0.1/closebook?sslmode=require')).toThrow(/sslmode=require is not used/);
  });

  it('refuses a password in the address, and says what a usable address looks like', () => {
    expect(() => teamLedgerAddress('postgresql://anna:secret@ledger.example.com/closebook')).toThrow(/keeps it in the keychain/);
    expect(() => teamLedgerAddress('https://ledger.example.com')).toThrow(/starts with postgresql:\/\//);
    expect(() => teamLedgerAddress('postgresql://ledger.example.com/closebook')).toThrow(/Name your database role/);
    expect(() => teamLedgerAddress('postgresql://anna@ledger.example.com/')).toThrow(/Name the database/);
    expect(() => teamLedgerAddress('postgresql://anna@ledger.example.com/closebook?application_name=x')).toThrow(/not application_name/);
    expect(() => teamLedgerAddress('not a url')).toThrow(/not a team ledger address/);
  });
});
