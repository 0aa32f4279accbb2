import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEAM_LEDGER_SCHEMA } from '@testing/postgres';
import { schemaUpgrades, TEAM_SCHEMA_VERSION } from '@shared/model/team-schema';

describe("the team ledger schema's files", () => {
  it('are the ones the main script includes, in order, each bringing the version before it one up', async () => {
    const main = await readFile(TEAM_LEDGER_SCHEMA, 'utf8');
    const included = [...main.matchAll(/^\\ir (\S+)$/gm)].map((match) => match[1]);
    expect(included).toEqual(schemaUpgrades(1));
    expect(TEAM_SCHEMA_VERSION).toBe(included.length + 1);
    for (const [index, file] of included.entries()) {
      const text = await readFile(join(TEAM_LEDGER_SCHEMA, '..', file!), 'utf8');
      expect(text, file).toContain(`IF (SELECT max(version) FROM closebook.schema_version) <> ${index + 1} THEN`);
      expect(text, file).toContain(`UPDATE closebook.schema_version SET version = ${index + 2};`);
    }
    expect(schemaUpgrades(2)).toEqual(included.slice(1));
    expect(schemaUpgrades(TEAM_SCHEMA_VERSION)).toEqual([]);
  });
});
