import { mkdir, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ChannelOutput, FileResult, GroupPack } from '@shared/contract';
import { AppError } from '@shared/errors';
import { isEmptyFilter, type ReportFilter } from '@shared/report-filter';
import type { ReportMeta } from '@shared/schemas/saved-report';
import type { Ledger } from '../ledger/ledger';
import { deliverFile, safeFileName } from '../storage/files';
import type { Ports } from '../ports/ports';
import { groupMembership } from './queries/group-packs';
import { writeReportWorkbook, type WorkbookOptions } from './report-workbook';
import { errorMessage } from '@shared/error-message';

/** The pack of the organizations that are in no group. */
const UNGROUPED_PACK_NAME = 'Ungrouped';

/** A workbook to write: one group's organizations (or the ungrouped), with the filter that keeps exactly their lines. */
export interface PlannedPack {
  group: string | null;
  organizations: number;
  fileName: string;
  filter: ReportFilter;
}

export interface PackPlan {
  packs: PlannedPack[];
  /** Organizations in more than one group: each of their packs holds them. */
  inSeveralGroups: number;
}

/** A pack as written, with its billing-line count (the CLI prints it). */
export type WrittenPack = GroupPack & { lines: number };

/**
 * One pack per organization group that has lines in what `filter` keeps, and an "Ungrouped" pack when some kept
 * organizations are in no group. The packs split the report by group themselves, so the filter's own group
 * choice is set aside; its other parts (service, currency, text …) apply to every pack. Refuses a report (or
 * view) with no groups: its one pack would be the whole export.
 */
/** What a pack carries of its month's close: the About rows and the state under Invoicing; a draft's names say so. */
export type PackClose = Pick<WorkbookOptions, 'addSheets' | 'stamp'>;

export async function planGroupPacks(
  ledger: Ledger,
  meta: Pick<ReportMeta, 'id' | 'name'>,
  filter: ReportFilter = {},
  close: PackClose = {},
): Promise<PackPlan> {
  const { group: _group, ungrouped: _ungrouped, ...common } = filter;
  const { groups, ungrouped, several } = await groupMembership(ledger, meta.id, common);
  if (groups.length === 0) {
    throw new AppError(
      'validation',
      `No organization in ${isEmptyFilter(common) ? 'this report' : 'this view of the report'} belongs to an organization group, so there are no per-group packs to make. Export the whole report instead.`,
    );
  }
  const wanted: Omit<PlannedPack, 'fileName'>[] = groups.map((row) => ({
    group: row.group_name,
    organizations: row.organizations,
    filter: { ...common, group: row.group_name },
  }));
  if (ungrouped > 0) wanted.push({ group: null, organizations: ungrouped, filter: { ...common, ungrouped: true } });
  const names = packFileNames(
    `${meta.name}${close.stamp?.word === 'DRAFT' ? ' (DRAFT)' : ''}`,
    wanted.map((pack) => pack.group ?? UNGROUPED_PACK_NAME),
  );
  return { packs: wanted.map((pack, index) => ({ ...pack, fileName: names[index] as string })), inSeveralGroups: several };
}

/**
 * `<report name> — <group>.xlsx` for each pack: safe on every OS, and distinct even where the disk ignores case
 * ("Jane Doe" and "jane doe" would overwrite each other on macOS and Windows), so the later one gets " (2)".
 */
export function packFileNames(reportName: string, groups: string[]): string[] {
  const taken = new Set<string>();
  return groups.map((group) => {
    // Room for " (n)" and ".xlsx" within safeFileName's length limit.
    const base = safeFileName(`${reportName} — ${group}`).slice(0, 130).trim();
    let name = base;
    for (let copy = 2; taken.has(name.normalize('NFC').toLowerCase()); copy++) name = `${base} (${copy})`;
    taken.add(name.normalize('NFC').toLowerCase());
    return `${name}.xlsx`;
  });
}

/**
 * Writes the packs one after another through `write` (each written atomically: complete or not at all). When one
 * fails, those already written stay, and the error says which they are and which pack failed.
 */
export async function writeGroupPacks(
  packs: PlannedPack[],
  write: (pack: PlannedPack) => Promise<{ file: FileResult; lines: number }>,
  where = '',
): Promise<WrittenPack[]> {
  const written: WrittenPack[] = [];
  for (const pack of packs) {
    try {
      const { file, lines } = await write(pack);
      written.push({ group: pack.group, organizations: pack.organizations, fileName: pack.fileName, file, lines });
    } catch (error) {
      const reason = errorMessage(error);
      const names = written.map((done) => done.fileName);
      const listed = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
      const before =
        written.length === 0 ? 'No pack was written.' : `The ${written.length} of ${packs.length} packs before it were written${where}: ${listed}.`;
      throw new AppError(error instanceof AppError ? error.code : 'storage', `${reason.replace(/\.?$/, '.')} ${before}`);
    }
  }
  return written;
}

/** Writes every pack into `folder` (which must exist), each as `<folder>/<fileName>`; a file of the same name is replaced. */
export function writeGroupPacksInto(
  ledger: Ledger,
  meta: ReportMeta,
  plan: PackPlan,
  folder: string,
  options: Omit<WorkbookOptions, 'filter'>,
): Promise<WrittenPack[]> {
  return writeGroupPacks(
    plan.packs,
    async (pack) => {
      const path = join(folder, pack.fileName);
      const { lines } = await writeReportWorkbook(ledger, meta, path, { ...options, filter: pack.filter });
      return { file: { kind: 'saved', path }, lines };
    },
    ` to ${folder}`,
  );
}

const workbookOptions = (ports: Ports, close: PackClose) => ({ ...close, appVersion: ports.appVersion, exportedAt: new Date(ports.clock.now()) });

/**
 * `reports:export-groups`: the desktop asks for a folder and writes every pack into it; the browser bridge hands
 * each pack to the page as a download of its own. The plan is made first, so a report without groups is refused
 * before any dialog opens.
 */
export async function exportGroupPacks(
  ports: Ports,
  ledger: Ledger,
  meta: ReportMeta,
  close: PackClose = {},
  filter?: ReportFilter,
): Promise<ChannelOutput<'reports:export-groups'>> {
  const plan = await planGroupPacks(ledger, meta, filter, close);
  if (ports.pickFolder) {
    const folder = await ports.pickFolder('Choose a folder for the workbooks, one per organization group');
    if (!folder) return { folder: null, packs: [] };
    return { folder, packs: await writeGroupPacksInto(ledger, meta, plan, folder, workbookOptions(ports, close)) };
  }
  const options = workbookOptions(ports, close); // one export time for the whole set
  const packs = await writeGroupPacks(plan.packs, async (pack) => {
    let lines = 0;
    const file = await deliverFile(ports, pack.fileName, 'xlsx', async (path) => {
      ({ lines } = await writeReportWorkbook(ledger, meta, path, { ...options, filter: pack.filter }));
    });
    return { file, lines };
  });
  return { folder: null, packs };
}

/** The CLI's `reports export ID --per-group --out-dir DIR`: every pack into `folder`, made when missing. */
export async function exportGroupPacksToFolder(
  ports: Ports,
  ledger: Ledger,
  meta: ReportMeta,
  close: PackClose,
  folder: string,
  filter?: ReportFilter,
): Promise<{ packs: WrittenPack[]; inSeveralGroups: number }> {
  const plan = await planGroupPacks(ledger, meta, filter, close);
  const made = await mkdir(folder, { recursive: true });
  try {
    return { packs: await writeGroupPacksInto(ledger, meta, plan, folder, workbookOptions(ports, close)), inSeveralGroups: plan.inSeveralGroups };
  } catch (error) {
    // A folder made for packs of which none was written goes again (rmdir: only ever an empty one).
    for (let empty = folder; made && empty.startsWith(made); empty = dirname(empty)) await rmdir(empty).catch(() => undefined);
    throw error;
  }
}
