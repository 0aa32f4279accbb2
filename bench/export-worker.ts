import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { createService } from '../src/main/core';
import { testPorts } from '../src/main/testing/test-support';
import type { SavedReport } from '../src/shared/schemas/saved-report';

/**
 * One export in a fresh process, as `reports export` runs it: load the saved report, write the workbook, and report
 * the time and the process's peak resident memory. `plain` is the baseline: exceljs's streaming writer writing the
 * same rows with no formats, styles or other sheets.
 */
async function plainStreamingExport(report: SavedReport): Promise<void> {
  const stream = new PassThrough();
  stream.resume();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: false, useSharedStrings: false });
  const sheet = workbook.addWorksheet('Billing lines');
  sheet.addRow(Array.from({ length: 22 }, (_, column) => `Column ${column + 1}`)).commit();
  for (const entry of report.entries)
    for (const organization of entry.organizations)
      for (const service of organization.services)
        for (const item of service.items)
          for (const line of item.products) {
            sheet
              .addRow([
                organization.name, organization.customerNumber, organization.orgId, organization.organizationGroups.join(', '), service.serviceName, service.serviceId,
                item.itemName, item.subscriptionId, item.poNumber, line.productName, line.productId, line.itemCode, line.quantity, Number(line.resellerPricePerUnit),
                Number(line.customerPricePerUnit), Number(line.totalResellerPrice), Number(line.totalCustomerPrice), Number(line.totalCustomerPrice) - Number(line.totalResellerPrice),
                service.currencyCode, service.customerCurrencyCode, entry.billingDate, line.itemDetails,
              ])
              .commit();
          }
  sheet.commit();
  await workbook.commit();
}

async function main() {
  const [dataDir, id, mode] = process.argv.slice(2) as [string, string, 'full' | 'plain'];
  const { ports, cleanup } = await testPorts({ dataDir });
  const service = createService(ports);
  const report = await service.handlers['reports:open']({ reportId: id });
  const start = performance.now();
  if (mode === 'plain') await plainStreamingExport(report);
  else await service.reports.exportWorkbook(id, join(dataDir, 'bench.xlsx'));
  const ms = performance.now() - start;
  process.stdout.write(`${JSON.stringify({ ms, peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
  await cleanup();
}

void main();
