import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '@testing/cleanups';
import { foldForSearch } from '@shared/search-fold';
import { Ledger } from './ledger';
import { foldedSql } from './keys';
import { silentLogger } from '@core/ports/ports';
import { temporaryDir } from '@testing/test-support';

const cleanups = cleanupsAfterEach();

// Names as customers and products are written across Europe, and text with no letters to fold.
const SAMPLES = [
  'Åkerberg & Ørsted AB',
  'Æbeltoft Œuvre Straße',
  'Łódź Đakovo Þórshöfn Íslenska',
  'Café Crème Brûlée',
  'Señor Niño Ñandú',
  'Ärla Östen Überall',
  'Čeština Şişli İzmir ığdır',
  'ĲmuidenǄ', // ligatures NFD keeps whole: left as they are, by both
  'plain ascii 123 C-1000',
  'Ω Ελληνικά Ά',
];

describe('search folding', () => {
  it('folds a column in SQL exactly as typed text is folded, so a migrated month and a new one match alike', async () => {
    const dir = await temporaryDir();
    const ledger = await Ledger.open(dir.path, silentLogger);
    cleanups.push(async () => {
      await ledger.close();
      await dir.remove();
    });
    const rows = (await ledger.all(`SELECT ${foldedSql('lower(name)')} AS folded FROM (SELECT unnest(string_split($1, '\t')) AS name)`, [
      SAMPLES.join('\t'),
    ])) as {
      folded: string;
    }[];
    expect(rows.map((row) => row.folded)).toEqual(SAMPLES.map(foldForSearch));
    expect(foldForSearch('Åkerberg & Ørsted AB')).toBe('akerberg & orsted ab');
    expect(foldForSearch('Æbeltoft Œuvre Straße')).toBe('aebeltoft oeuvre strasse');
  });
});
