import { bridgeLines } from '@shared/model/bridge-text';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type PDFDocument from 'pdfkit';
import type { CloseLog, CurrencyBridge, MonthCloseView } from '@shared/schemas/month-close';
import { describeFigures, openTotal, shownReviewState } from '@shared/model/review-state';
import { resourcePath } from '../ports/resources';
import type { OutputFolder } from '../storage/output-file';
import { closeStamp, localDateTime } from './close-stamp';
import type { MonthLabel } from './close-workbook';
import type { MonthRef } from './months';

/** Everything an evidence pack shows of one fetch of a month. */
export interface EvidenceInput {
  reportId: string;
  month: MonthRef;
  label: MonthLabel;
  view: MonthCloseView;
  log: CloseLog;
  /** The month before it and the per-currency sales bridge against it (null: none in the ledger). */
  previous: { label: MonthLabel; bridges: CurrencyBridge[] } | null;
  /** The rates the month keeps (its reference currency's own among them). */
  rates: { reference_currency: string; currency: string; rate: string }[];
  appVersion: string;
  madeAt: Date;
  timeZone?: string | undefined;
}

/** Sizes in points: the body at 9 pt (the floor is 8), every page numbered. */
const SIZE = { title: 16, heading: 12, body: 9, small: 8 } as const;
const MARGIN = 50;

const when = (at: string | null, timeZone: string | undefined) => (at ? localDateTime(at, timeZone, true) : '—');

const figures = (evidence: Record<string, string>) => describeFigures(evidence) || 'none';

/** A log entry's evidence (JSON of named figures) as the exceptions show theirs; anything else as it was written. */
function logFigures(evidence: string): string {
  try {
    const parsed = JSON.parse(evidence) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return figures(Object.fromEntries(Object.entries(parsed).map(([name, value]) => [name, String(value)])));
  } catch {
    // not JSON: shown as written
  }
  return evidence;
}

/**
 * The month-close evidence pack as one PDF, for an auditor: the state and who prepared and approved it when, the
 * content hash in full and whether the lines and the log still check out, the per-currency bridge against the month
 * before, every exception with its review, note and figures, and the whole close log. Written with pdfkit and the
 * bundled DejaVu fonts, so the app and the command line make the same file; text wraps, nothing is cut, and every
 * page says which page of how many it is.
 */
export async function writeEvidencePdf(outputs: OutputFolder, path: string, input: EvidenceInput): Promise<{ pages: number }> {
  return outputs.write(path, async (temporary) => {
    const fonts = {
      regular: resourcePath('fonts', 'DejaVuSans.ttf'),
      bold: resourcePath('fonts', 'DejaVuSans-Bold.ttf'),
      mono: resourcePath('fonts', 'DejaVuSansMono.ttf'),
    };
    // Loaded here, not at start: pdfkit costs a command line that makes no PDF about 160 ms.
    const { default: PdfDocument } = await import('pdfkit');
    const document = new PdfDocument({
      size: 'A4',
      margin: MARGIN,
      bufferPages: true,
      font: fonts.regular,
      info: {
        Title: `Month-close evidence: ${input.label.name} (${input.month.startDate} – ${input.month.endDate})`,
        Creator: `Closebook ${input.appVersion}`,
        CreationDate: input.madeAt,
      },
    });
    const written = pipeline(document, createWriteStream(temporary, { mode: 0o600 }));
    document.registerFont('regular', fonts.regular).registerFont('bold', fonts.bold).registerFont('mono', fonts.mono);
    layOut(document, input);
    const pages = numberPages(document);
    document.end();
    await written;
    return { pages };
  });
}

type Doc = InstanceType<typeof PDFDocument>;

function heading(document: Doc, text: string): void {
  document.moveDown(0.8).font('bold').fontSize(SIZE.heading).text(text).moveDown(0.3).font('regular').fontSize(SIZE.body);
}

/** A label and its value on one line (the value wraps under itself when long). */
function field(document: Doc, label: string, value: string, font: 'regular' | 'mono' = 'regular'): void {
  document.font('bold').fontSize(SIZE.body).text(`${label}: `, { continued: true }).font(font).text(value).font('regular');
}

function layOut(document: Doc, input: EvidenceInput): void {
  const { view, log, timeZone } = input;
  const stamp = closeStamp(view, input.reportId, timeZone);
  document.font('bold').fontSize(SIZE.title).text(`Month-close evidence — ${input.label.name}`);
  document
    .font('regular')
    .fontSize(SIZE.body)
    .text(`${input.month.startDate} – ${input.month.endDate} · ${input.month.host} · reseller ${input.month.resellerId}`);
  document.moveDown(0.5).font('bold').fontSize(SIZE.heading).text(stamp.line).font('regular').fontSize(SIZE.body);

  heading(document, 'Sign-off');
  const signOff = view.signOff;
  field(document, 'State of this fetch', view.state.toUpperCase());
  field(document, 'Prepared by', signOff ? `${signOff.preparedBy} at ${when(signOff.preparedAt, timeZone)}` : 'not prepared');
  field(document, 'Approved by', signOff?.approvedBy ? `${signOff.approvedBy} at ${when(signOff.approvedAt, timeZone)}` : 'not approved');
  field(document, 'Ready to invoice', view.readyToInvoice ? (view.state === 'approved' ? 'yes' : 'yes — not approved by a second person') : 'no');
  if (signOff && signOff.reportId !== input.reportId) field(document, 'Signed on another fetch', signOff.reportId, 'mono');
  field(document, 'Content hash of the signed lines (SHA-256)', signOff?.contentHash ?? 'none: nothing is signed', 'mono');
  field(
    document,
    'Signed lines hashed again',
    view.integrity.contentChanged === null ? 'nothing signed' : view.integrity.contentChanged ? 'DIFFERENT — changed after sign-off' : 'the same',
  );
  field(
    document,
    'Close log',
    view.integrity.logIntact ? `${log.entries.length} entries, hash chain intact` : `CHANGED — the chain breaks at entry ${view.integrity.logBrokenAt}`,
  );
  field(
    document,
    'Thresholds',
    `margin ${view.thresholds.marginDeviationPoints} points from the median; quantity jump ${view.thresholds.quantityJumpPercent} %`,
  );
  const rates = input.rates.filter((rate) => rate.currency !== rate.reference_currency);
  field(
    document,
    'Reference-currency rates',
    rates.length ? `${rates.map((rate) => `1 ${rate.currency} = ${rate.rate} ${rate.reference_currency}`).join('; ')}` : 'none',
  );

  heading(document, 'This fetch');
  field(document, 'Report', `${input.label.name} (${input.label.lines.toLocaleString('en')} billing lines)`);
  field(document, 'Report id', input.reportId, 'mono');
  field(document, 'Fetched', when(input.label.fetchedAt, timeZone));
  field(document, 'Evidence made', `${when(input.madeAt.toISOString(), timeZone)} by Closebook ${input.appVersion}`);

  heading(document, 'Sales, cost and margin against the month before, per currency');
  if (!input.previous) document.text('No earlier month of this service and reseller is in the ledger.');
  else {
    document
      .text(`Compared with ${input.previous.label.name} (${input.previous.label.period.startDate} – ${input.previous.label.period.endDate}).`)
      .moveDown(0.3);
    for (const bridge of input.previous.bridges) for (const line of bridgeLines(bridge)) document.text(line);
  }

  const open = openTotal(view.open);
  heading(document, `Exceptions (${view.exceptions.length.toLocaleString('en')}; ${open.toLocaleString('en')} open)`);
  if (!view.exceptions.length) document.text('None: every check passed.');
  view.exceptions.forEach((exception, index) => {
    const review = exception.review;
    const state = shownReviewState(review);
    document
      .moveDown(0.4)
      .font('bold')
      .text(`${index + 1}. ${exception.severity.toUpperCase()} · ${exception.title} · ${state.toUpperCase()}`)
      .font('regular');
    const place = [exception.organization, exception.customerNumber || 'no customer number', exception.service, exception.subscription, exception.product]
      .filter(Boolean)
      .join(' › ');
    document.text(place).text(exception.message);
    field(document, 'Figures', figures(exception.evidence));
    if (review) {
      field(
        document,
        'Review',
        `${review.state} by ${review.reviewedBy} at ${when(review.reviewedAt, timeZone)}${review.capturedAtMigration ? ' (evidence captured at migration)' : ''}`,
      );
      field(document, 'Note', review.note || '—');
      if (review.suspended) field(document, 'Suspended', `reviewed on ${figures(review.suspended.reviewed)}; now ${figures(review.suspended.now)}`);
    }
    document.font('mono').fontSize(SIZE.small).text(exception.id).font('regular').fontSize(SIZE.body);
  });

  heading(document, `Close log (${log.entries.length.toLocaleString('en')} entries, oldest first)`);
  if (!log.entries.length) document.text('No entries yet.');
  for (const entry of log.entries) {
    document
      .moveDown(0.3)
      .font('bold')
      .text(`#${entry.seq} · ${when(entry.at, timeZone)} · ${entry.actor} · ${entry.action}`)
      .font('regular');
    if (entry.exceptionId) document.font('mono').fontSize(SIZE.small).text(entry.exceptionId).font('regular').fontSize(SIZE.body);
    if (entry.note) document.text(`“${entry.note}”`);
    if (entry.evidence && entry.action !== 'prepared') field(document, entry.action === 'reopened' ? 'Was' : 'Figures', logFigures(entry.evidence));
    document.font('mono').fontSize(SIZE.small).text(`hash ${entry.hash}`).font('regular').fontSize(SIZE.body);
  }
}

/** "Page N of M" at the foot of every page (written into the bottom margin, so it never starts a page of its own). */
function numberPages(document: Doc): number {
  const { start, count } = document.bufferedPageRange();
  for (let page = start; page < start + count; page++) {
    document.switchToPage(page);
    const bottom = document.page.margins.bottom;
    document.page.margins.bottom = 0;
    document
      .font('regular')
      .fontSize(SIZE.small)
      .text(`Page ${page - start + 1} of ${count}`, MARGIN, document.page.height - MARGIN / 2 - SIZE.small, {
        width: document.page.width - 2 * MARGIN,
        align: 'center',
      });
    document.page.margins.bottom = bottom;
  }
  return count;
}
