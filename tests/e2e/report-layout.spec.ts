import type { Page } from '@playwright/test';
import { startTwin, type Twin } from '@twin/server';
import { expect, test } from './fixtures';
import { ClosebookPage, cutPlaceholders, NARROW, WIDE } from './pages';
import { ViewerPage } from './viewer-page';

/** Longer than any the demo makes up, and first A→Z: it is the top row, where its ellipsis must not push an amount out. */
const LONG_NAME = 'Aabenraa Offshore Engineering, Logistics and Consulting Group Holding ApS (publ)';

/**
 * A twin whose first EUR organization has the long name and, on its first subscription, prices a thousand times
 * the catalogue's: amounts of 7 and 8 digits at every level of its tree.
 */
async function twinWithLongNameAndLargeAmounts(): Promise<Twin> {
  const twin = await startTwin({ reportReadyAfterMs: 500, reportReadyAfterPolls: 1 });
  const organization = twin.organizations.find((candidate) => candidate.currency === 'EUR')!;
  organization.name = LONG_NAME;
  const subscription = organization.services[0]!.subscriptions[0]!;
  // The catalogue's templates are shared by every organization: change copies.
  subscription.products = subscription.products.map((product) => ({ ...product, template: { ...product.template, unitCost: 40_000, metered: false } }));
  return twin;
}

interface Problem {
  what: string;
  text: string;
}

/**
 * Everything in view that is cut off or off screen: amount cells whose text is wider than the cell, headers (with
 * their sort arrows) outside the window or their cell, currency codes outside their cell or the window.
 */
async function layoutProblems(page: Page): Promise<Problem[]> {
  return page.evaluate(() => {
    const problems: { what: string; text: string }[] = [];
    const viewport = { width: window.innerWidth, height: window.innerHeight };
    const inside = (inner: DOMRect, outer: { left: number; top: number; right: number; bottom: number }) =>
      inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
    const screen = { left: 0, top: 0, right: viewport.width, bottom: viewport.height };
    const tree = document.querySelector('[role=treegrid]')!;
    const treeBox = tree.getBoundingClientRect();
    // Rows under the sticky header or below the tree's bottom edge are not in view.
    const header = tree.querySelector('[role=row][aria-rowindex="1"]')!.getBoundingClientRect();
    const inView = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.top >= header.bottom - 1 && box.bottom <= treeBox.bottom + 1;
    };

    const numberCells = [...tree.querySelectorAll('[role=row][aria-level] [role=gridcell].num')].filter(inView);
    const totalsCells = [...document.querySelectorAll('[aria-label="Totals per currency"] td, [aria-label="Totals per currency"] th')];
    for (const cell of [...numberCells, ...totalsCells]) {
      if (cell.scrollWidth > cell.clientWidth) problems.push({ what: 'clipped number', text: cell.textContent ?? '' });
      if (!inside(cell.getBoundingClientRect(), screen)) problems.push({ what: 'number off screen', text: cell.textContent ?? '' });
    }
    for (const head of tree.querySelectorAll('[role=columnheader]')) {
      const box = head.getBoundingClientRect();
      const text = head.textContent ?? '';
      if (!inside(box, screen)) problems.push({ what: 'header off screen', text });
      if (head.scrollWidth > head.clientWidth) problems.push({ what: 'header clipped', text });
      const label = head.querySelector('.head__label');
      if (label && label.scrollWidth > label.clientWidth) problems.push({ what: 'header label cut', text });
      const arrow = head.querySelector('.sort__arrow');
      if (arrow && !inside(arrow.getBoundingClientRect(), box)) problems.push({ what: 'sort arrow outside its header', text });
    }
    for (const code of tree.querySelectorAll('.ccy')) {
      const cell = code.closest('[role=gridcell]')!;
      if (!inView(cell)) continue;
      const box = code.getBoundingClientRect();
      if (!inside(box, cell.getBoundingClientRect()) || !inside(box, screen) || box.width === 0)
        problems.push({ what: 'currency code hidden', text: cell.textContent ?? '' });
      if (!/^[A-Z]{3}$/.test(code.textContent ?? '')) problems.push({ what: 'not a currency code', text: code.textContent ?? '' });
    }
    return problems;
  });
}

for (const size of [NARROW, WIDE]) {
  test(`the report viewer at ${size.width}×${size.height}: no clipped amount, currency code or header`, async ({ page, bridge }) => {
    const twin = await twinWithLongNameAndLargeAmounts();
    try {
      await bridge.useProfileFor(twin, 'Layout');

      await page.setViewportSize(size);
      const app = new ClosebookPage(page);
      await app.open(bridge.harness.url);
      await app.requestReport(60_000);
      const viewer = await ViewerPage.open(page);
      const { tree } = viewer;
      await viewer.expandOrganizations();
      // The long-named organization is the first row; its first service and subscription open, so every level shows.
      const first = viewer.rows(1).first();
      await expect(first).toHaveAttribute('aria-expanded', 'true');
      // The whole name in the tooltip, with its detail (the customer number).
      await expect(viewer.gridCells(first).first()).toHaveAttribute('title', new RegExp(`^${LONG_NAME.replace(/[()]/g, '\\$&')} · C-\\d+$`));
      await viewer.rows(2).first().click();
      await viewer.rows(3).first().click();
      await expect(viewer.rows(4).first()).toBeVisible();
      await expect(viewer.totals.getByTestId('currency-total').first()).toBeVisible();
      await page.screenshot({ path: `test-results/report-layout-${size.width}x${size.height}.png` });

      // The long name gives way (an ellipsis, the whole name in its tooltip); the amounts beside it do not.
      const name = first.locator('.tree__label');
      expect(await name.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      // Seven digits and more are on screen, each with its currency code.
      const large = await tree
        .locator('[role=gridcell].num')
        .evaluateAll((cells) => cells.map((cell) => cell.textContent ?? '').filter((text) => /\d{1,3}(?:\D\d{3}){2}\D\d{2}[A-Z]{3}$/.test(text)));
      expect(large.length, 'amounts of a million or more').toBeGreaterThan(0);

      expect(await layoutProblems(page)).toEqual([]);
      expect(await cutPlaceholders(page), 'the filters say whole what to type').toEqual([]);
      for (const column of ['Cost', 'Sales', 'Margin', 'Margin %']) {
        const header = viewer.columnHeader(column, { exact: true });
        const box = (await header.boundingBox())!;
        expect(box.x + box.width, `${column} on screen`).toBeLessThanOrEqual(size.width);
      }
    } finally {
      await twin.close();
    }
  });
}
