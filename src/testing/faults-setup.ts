import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { figuresTable, readFigures } from './fuzz';

let folder = '';

/** The fault suite's global setup: a folder for each boundary's figures, and one table of them all at the end. */
export function setup(project: TestProject): void {
  folder = mkdtempSync(join(tmpdir(), 'closebook-fault-figures-'));
  project.provide('faultFiguresDir', folder);
}

export function teardown(): void {
  const figures = readFigures(folder);
  // The suite's product is this table: it goes to the terminal (and CI log) whatever the reporter.
  process.stdout.write(figures.length ? `\n${figuresTable(figures)}` : '\nNo fault figures were saved (no fault test ran to its end).\n');
  rmSync(folder, { recursive: true, force: true });
}
