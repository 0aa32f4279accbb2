// Totals every runner's JSON report (Vitest, Playwright) plus the plain checks into one closing line:
// "N passed, N failed, N skipped". A report that is missing counts as one failure: its runner crashed.
import { existsSync, readFileSync } from 'node:fs';

const [checksPassed, checksFailed, ...reports] = process.argv.slice(2);
let passed = Number(checksPassed);
let failed = Number(checksFailed);
let skipped = 0;

for (const report of reports) {
  if (!existsSync(report)) {
    console.log(`summary: ${report} is missing (its runner did not finish): counted as 1 failure`);
    failed += 1;
    continue;
  }
  const json = JSON.parse(readFileSync(report, 'utf8'));
  if (json.stats && 'expected' in json.stats) {
    // Playwright
    passed += json.stats.expected + json.stats.flaky;
    failed += json.stats.unexpected;
    skipped += json.stats.skipped;
  } else {
    // Vitest; a file that failed to load is a failure even though none of its tests ran
    passed += json.numPassedTests;
    failed += json.numFailedTests + (json.numFailedTestSuites > 0 && json.numFailedTests === 0 ? json.numFailedTestSuites : 0);
    skipped += json.numPendingTests + (json.numTodoTests ?? 0);
  }
}

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
