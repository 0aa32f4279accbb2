import type { Ledger } from '@core/ledger/ledger';
import { keepRecent } from '../runtime/recent-map';
import { type LevelNumbers, wordMatches, type WordMatches, type WordSets } from './queries/lines';

/** How many typed words' sets are kept per report: a word and the few before it, and a word typed again after a backspace. */
const WORDS_KEPT = 16;
/** Of how many reports, the last searched: a 1,000,000-line month's sets are up to 300 KB a word. */
const REPORTS_KEPT = 3;

/**
 * The sets of bits the words typed in a report's filter matched (see wordMatches), the last few kept per report. A
 * word looked for before is not looked for again; a word that holds one looked for before (typed on from it, a
 * character at a time) is looked for only among what that one matched. A report's matches hold while it is saved:
 * forgotten when it is deleted or replaced.
 */
export class TypedWordMatches {
  private readonly kept = new Map<string, Map<string, Promise<WordSets>>>();

  async of(ledger: Ledger, reportId: string, words: string[], numbers: LevelNumbers): Promise<WordMatches> {
    const known = this.kept.get(reportId) ?? new Map<string, Promise<WordSets>>();
    keepRecent(this.kept, reportId, known, REPORTS_KEPT);
    const unknown = [...new Set(words.filter((word) => !known.has(word)))];
    if (unknown.length) {
      // The longest word looked for before that each new one holds: its sets bound the new word's.
      const bounds = unknown.map((word) => {
        const held = [...known.keys()].filter((before) => word.includes(before)).sort((a, b) => b.length - a.length)[0];
        return held === undefined ? undefined : known.get(held)?.catch(() => undefined);
      });
      const made = Promise.all(bounds).then((within) => wordMatches(ledger, reportId, unknown, numbers, within));
      unknown.forEach((word, index) => {
        const sets = made.then((all) => all[index] as WordSets);
        sets.catch(() => known.get(word) === sets && known.delete(word)); // the next keystroke looks again
        known.set(word, sets);
      });
    }
    const answers = words.map((word) => known.get(word) as Promise<WordSets>);
    words.forEach((word, index) => keepRecent(known, word, answers[index] as Promise<WordSets>, WORDS_KEPT));
    return Promise.all(answers);
  }

  forget(reportId?: string): void {
    if (reportId === undefined) this.kept.clear();
    else this.kept.delete(reportId);
  }
}
