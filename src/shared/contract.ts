import { z } from 'zod';
import { AppErrorShape } from './errors';
import { OrganizationInput, OrganizationsInReport, OrganizationSummary } from './schemas/organization';
import { ConnectionTestResult, ProfilesState, ProfileView, SaveProfileInput } from './schemas/profile';
import { ReportPeriod } from './schemas/billing-report';
import { IsoDate, PlainName } from './schemas/common';
import { ConnectionTestProgress } from './connection-test-progress';
import { InputRow, MAX_CONSUMPTION_FILE_BYTES, MAX_EXTRA_COLUMNS, ParsedFile, Submission, SubmissionSummary, SubscriptionNames } from './schemas/consumption';
import { ReportJob, ReportListing, ReportMeta } from './schemas/saved-report';
import { TeamConnectInput, TeamLedgerView, TeamMoveIn } from './schemas/team-ledger';
import {
  AdjustmentInput,
  CustomerMapping,
  InvoiceFormat,
  InvoiceKey,
  InvoiceLine,
  InvoiceMapping,
  InvoiceRunOverview,
  InvoiceSettings,
  NextInvoiceNumber,
  ItemMapping,
} from './schemas/invoices';
import {
  Checklist,
  CheckThresholds,
  CloseCalendar,
  CHANGES_PER_WINDOW,
  ChangeView,
  ChangeWindow,
  MAX_REVIEWS_AT_ONCE,
  CloseLog,
  MonthCloseView,
  FetchState,
  MonthComparison,
  MonthSummary,
  RatesView,
  ReviewState,
  Trends,
  TrendScope,
  TrendScopes,
} from './schemas/month-close';
import { DecimalText as Decimal } from './model/decimal';
import { ReportFilterInput } from './report-filter';
import { NameOrder } from './model/name-order';

/**
 * THE IPC contract. Every request the renderer can make is a channel here with an input and an output schema;
 * every message the main process pushes is an event here. The Electron main process, the preload, the browser
 * test bridge and the renderer all derive their types and checks from this one object.
 */

const ProfileRef = z.object({ profileId: z.string().uuid() });
const ReportRef = z.object({ reportId: z.string().uuid() });
const JobRef = z.object({ jobId: z.string().uuid() });
const Empty = z.object({});
const InvoiceSettingsView = InvoiceSettings.extend({ next: z.number().int() });

export const ReportSortInput = z.object({
  key: z.enum(['label', 'quantity', 'cost', 'sales', 'margin', 'marginPercent']),
  direction: z.enum(['asc', 'desc']),
});
export type ReportSortInput = z.infer<typeof ReportSortInput>;
/** How a report's tree is sorted when it is opened: by name, A→Z. */
export const OPENING_SORT: ReportSortInput = { key: 'label', direction: 'asc' };

/**
 * Which tree rows are open: `organizations` opens every organization row; `toggled` flips single rows against that
 * default (keys as the window gave them). The main process builds the visible list once per state.
 */
export const ReportExpansion = z.object({
  all: z.enum(['none', 'organizations']),
  toggled: z.array(z.string().max(400)).max(50_000),
});
export type ReportExpansion = z.infer<typeof ReportExpansion>;

/**
 * How the tree is arranged, as the service's own portal offers: organization › service › subscription › line, or
 * service › organization › subscription › line.
 */
export const ReportHierarchy = z.enum(['organization', 'service']);
export type ReportHierarchy = z.infer<typeof ReportHierarchy>;

/** A file Closebook produced: saved where the user chose (desktop), or handed to the page as a download (browser). */
export const FileResult = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('saved'), path: z.string() }),
  /** The browser bridge serves the file once at `url` (same origin); the page follows it as a download. */
  z.object({ kind: z.literal('download'), fileName: z.string(), url: z.string() }),
  z.object({ kind: z.literal('cancelled') }),
]);
export type FileResult = z.infer<typeof FileResult>;

export const TreeRow = z.object({
  key: z.string(),
  level: z.enum(['organization', 'service', 'subscription', 'line']),
  depth: z.number().int().nonnegative(),
  label: z.string(),
  /** Customer number, billing date, PO or item code: the grey text beside the label. */
  detail: z.string(),
  /** "SEK", or "USD→SEK" when bought and sold in different currencies. */
  currencyKey: z.string(),
  hasChildren: z.boolean(),
  expanded: z.boolean(),
  lines: z.number().int().nonnegative(),
  /** Subscriptions and billing lines only: above them a sum would add unlike units (GB + licences + hours). */
  quantity: Decimal.nullable(),
  /** Per unit, in the purchase and the customer currency: billing lines only. */
  unitCost: Decimal.nullable(),
  unitPrice: Decimal.nullable(),
  /** Subscriptions and billing lines. */
  poNumber: z.string().nullable(),
  /** As the service gives it (a day, no zone; never shifted): billing lines, and services under an organization. */
  billingDate: z.string().nullable(),
  cost: Decimal,
  sales: Decimal,
  /** Null where cost and sales are in different currencies. */
  margin: Decimal.nullable(),
  marginPercent: Decimal.nullable(),
  /** The stated total beside the exact sum of the level below, when they differ. */
  mismatch: z.object({ statedCost: Decimal, statedSales: Decimal, sumCost: Decimal, sumSales: Decimal }).nullable(),
});
export type TreeRow = z.infer<typeof TreeRow>;

export const CurrencyTotalRow = z.object({
  currencyKey: z.string(),
  lines: z.number().int().nonnegative(),
  cost: Decimal,
  sales: Decimal,
  margin: Decimal.nullable(),
  marginPercent: Decimal.nullable(),
});
export type CurrencyTotalRow = z.infer<typeof CurrencyTotalRow>;

/** What the viewer needs to open a report: its summary and the choices of its filters — never the lines. */
export const ReportView = z.object({
  meta: ReportMeta,
  groups: z.array(z.string()),
  services: z.array(z.string()),
  currencies: z.array(z.string()),
});
export type ReportView = z.infer<typeof ReportView>;

export const ReportWindow = z.object({
  /** Rows in the whole visible tree for this state (the scroll height). */
  rowCount: z.number().int().nonnegative(),
  /** Billing lines that pass the filter, and in the report. */
  lineCount: z.number().int().nonnegative(),
  totalLines: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  rows: z.array(TreeRow),
  /**
   * The totals per currency of the lines that pass the filter: with every window, so a keystroke is one request and
   * its rows and totals are painted in one frame.
   */
  totals: z.array(CurrencyTotalRow),
});
export type ReportWindow = z.infer<typeof ReportWindow>;

/** Why an amount to invoice needs a look before it goes to the ERP. */
export const InvoiceFlag = z.enum(['credit', 'stated-total-differs', 'missing-customer-number']);
export type InvoiceFlag = z.infer<typeof InvoiceFlag>;

/** One organization in one customer currency: what to invoice it. */
export const InvoiceRow = z.object({
  /** Organization key and currency: unique in the report. */
  key: z.string(),
  organization: z.string(),
  /**
   * The organization's place in the report's name order (its profile's, shared/model/name-order): the Invoicing view
   * sorts names by it, so they stand as in the tree, the workbook and the CSV.
   */
  nameRank: z.number().int().nonnegative(),
  customerNumber: z.string(),
  orgId: z.string(),
  groups: z.array(z.string()),
  /** The customer (sales) currency. */
  currency: z.string(),
  /** The exact sum of the organization's sales in `currency` over every service, rounded once to the currency's minor unit (ISO 4217). */
  amountToInvoice: Decimal,
  /** The same sum before rounding. */
  exactAmount: Decimal,
  lines: z.number().int().nonnegative(),
  /** What those lines cost, per purchase currency (a custom service bought in USD and sold in SEK adds a USD cost). */
  costs: z.array(z.object({ currency: z.string(), amount: Decimal })),
  /** Sales − cost of the part bought in the invoice currency; null when none of it is (never across currencies). */
  margin: Decimal.nullable(),
  /** The margin leaves out a part bought in another currency (a custom service bought in USD and sold in SEK). */
  marginPartial: z.boolean(),
  flags: z.array(InvoiceFlag),
});
export type InvoiceRow = z.infer<typeof InvoiceRow>;

export const InvoiceTotal = z.object({
  currency: z.string(),
  customers: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative(),
  /** The sum of the rounded amounts to invoice: what the invoices add up to. */
  amountToInvoice: Decimal,
});
export type InvoiceTotal = z.infer<typeof InvoiceTotal>;

/** Columns the tree can show beside the name; the user picks which (remembered between sessions). */
export const ReportColumn = z.enum(['quantity', 'unitCost', 'unitPrice', 'cost', 'sales', 'margin', 'marginPercent', 'poNumber', 'billingDate']);
export type ReportColumn = z.infer<typeof ReportColumn>;
export const DEFAULT_REPORT_COLUMNS: ReportColumn[] = ['quantity', 'cost', 'sales', 'margin', 'marginPercent'];

/** What the user set up in the screens and expects to find again (kept by the main process in the data folder). */
/** By finding (one customer's service in one currency: one cause, its reasons together) or by rule (to accept a whole price-list update at once). */
export const ExceptionGrouping = z.enum(['finding', 'rule']);
export type ExceptionGrouping = z.infer<typeof ExceptionGrouping>;

export const UiSettings = z.object({
  reportColumns: z.array(ReportColumn).max(20).default(DEFAULT_REPORT_COLUMNS),
  reportHierarchy: ReportHierarchy.default('organization'),
  /** How Close the month lists its exceptions. */
  exceptionGrouping: ExceptionGrouping.default('finding'),
});
export type UiSettings = z.infer<typeof UiSettings>;

/** One workbook of a per-group pack: the customers of one organization group (or of none, "Ungrouped"). */
export const GroupPack = z.object({
  /** The group's name; null for the organizations in no group. */
  group: z.string().nullable(),
  organizations: z.number().int().nonnegative(),
  fileName: z.string(),
  file: FileResult,
});
export type GroupPack = z.infer<typeof GroupPack>;

/** The hosts the core runs in: the Electron app, the browser test bridge, the command line. */
export const HostKind = z.enum(['electron', 'browser-bridge', 'cli']);
export type HostKind = z.infer<typeof HostKind>;

export const AppInfo = z.object({
  version: z.string(),
  host: HostKind,
  /** True until the first profile is created: the renderer then offers demo mode. */
  firstRun: z.boolean(),
  dataDir: z.string(),
  /** False when no OS keychain answers: the app then refuses to store secrets (never writes them in plain text). */
  keychainAvailable: z.boolean(),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const ConnectionState = z.object({
  profileId: z.string(),
  state: z.enum(['online', 'offline', 'auth-failed', 'service-error', 'unknown']),
  message: z.string().optional(),
  at: z.string(),
});
export type ConnectionState = z.infer<typeof ConnectionState>;

export const channels = {
  'app:info': { input: z.object({}), output: AppInfo },
  'profiles:list': { input: z.object({}), output: ProfilesState },
  'profiles:save': { input: SaveProfileInput, output: ProfileView },
  'profiles:delete': { input: ProfileRef, output: ProfilesState },
  'profiles:set-active': { input: ProfileRef, output: ProfilesState },
  /** How a profile's months sort names (the demo's too): saved at once, and its months sorted so from their next read. */
  'profiles:set-name-order': { input: ProfileRef.extend({ nameOrder: NameOrder }), output: ProfilesState },
  'profiles:test': { input: ProfileRef, output: ConnectionTestResult },
  'demo:start': { input: z.object({}), output: ProfileView },
  'organizations:list': { input: ProfileRef, output: z.array(OrganizationSummary) },
  'organizations:create': {
    input: ProfileRef.extend({ organization: OrganizationInput }),
    output: OrganizationSummary,
  },
  /** The organizations the profile's newest saved month bills (null: none saved), offline. */
  'organizations:in-report': { input: ProfileRef, output: OrganizationsInReport.nullable() },
  'reports:request': { input: ProfileRef.extend({ period: ReportPeriod }), output: ReportJob },
  'reports:jobs': { input: Empty, output: z.array(ReportJob) },
  'reports:cancel': { input: JobRef, output: Empty },
  'reports:retry': { input: JobRef, output: ReportJob },
  'reports:list': { input: Empty, output: z.array(ReportListing) },
  /**
   * A saved report's summary and filter choices (the lines stay in the ledger). `hierarchy`: how the viewer will
   * arrange it first (its remembered choice); the top rows it will ask for are started with the answer, so they are
   * made while it travels.
   */
  'reports:open': { input: ReportRef.extend({ hierarchy: ReportHierarchy.optional() }), output: ReportView },
  /** The visible rows `offset … offset + count` of the tree for a filter, sort and expansion. */
  'reports:window': {
    input: ReportRef.extend({
      filter: ReportFilterInput,
      sort: ReportSortInput,
      expansion: ReportExpansion,
      hierarchy: ReportHierarchy.default('organization'),
      offset: z.number().int().nonnegative().max(10_000_000),
      count: z.number().int().positive().max(500),
    }),
    output: ReportWindow,
  },
  /** One row per organization per customer currency: the amount to invoice, for what the filter keeps. */
  'reports:invoicing': {
    input: ReportRef.extend({ filter: ReportFilterInput }),
    output: z.object({ rows: z.array(InvoiceRow), totals: z.array(InvoiceTotal) }),
  },
  'reports:rename': { input: ReportRef.extend({ name: PlainName(120) }), output: ReportMeta },
  'reports:delete': { input: ReportRef, output: Empty },
  /** The Excel workbook; with a filter, only what the view shows. */
  'reports:export': {
    input: ReportRef.extend({ filter: ReportFilterInput.optional(), format: z.enum(['xlsx', 'parquet', 'csv']).default('xlsx') }),
    output: FileResult,
  },
  /**
   * One workbook per organization group (and one for the ungrouped), of what the filter keeps: into a folder the
   * user picks (desktop), or as downloads (browser). `folder` is null and `packs` empty when the user cancelled.
   */
  'reports:export-groups': {
    input: ReportRef.extend({ filter: ReportFilterInput.optional() }),
    output: z.object({ folder: z.string().nullable(), packs: z.array(GroupPack) }),
  },
  /** The saved report as a file to hand to a colleague. */
  'reports:share': { input: ReportRef, output: FileResult },
  /**
   * Imports a colleague's report file: picked in the desktop's own dialog, or uploaded first to the browser bridge
   * (`upload` is the id it gave). Null when the user cancelled the dialog.
   */
  'reports:import': { input: z.object({ upload: z.string().max(100).optional() }), output: ReportMeta.nullable() },
  /**
   * Puts a table on the clipboard as tab-separated text and as HTML (pastes into Excel as cells, text cells as text);
   * formula-leading text is escaped. Hosts without a clipboard of their own (the browser bridge) answer
   * `copied: false` with both, for the page to write.
   */
  'clipboard:copy-table': {
    input: z.object({ rows: z.array(z.array(z.string().max(2000)).max(60)).max(50_000) }),
    output: z.object({ copied: z.boolean(), text: z.string().optional(), html: z.string().optional() }),
  },
  /** The window as it is now, printed to a PDF the user saves (desktop: Electron's printToPDF with the print stylesheet). */
  'view:print-pdf': { input: z.object({ fileName: z.string().trim().min(1).max(150) }), output: FileResult },
  /** The team ledger: none, or who you are there, your roles and the months on it. */
  'team:status': { input: Empty, output: TeamLedgerView },
  /** Signs in with the address and password; when it works, keeps the address and the password (in the keychain). */
  'team:connect': { input: TeamConnectInput, output: TeamLedgerView },
  /** Back to the workstation's own ledger: forgets the address and the password. */
  'team:disconnect': { input: Empty, output: TeamLedgerView },
  /** Brings the team ledger's months this workstation lacks into its ledger (`period` YYYY-MM: that month's only). */
  'team:pull': {
    input: z.object({
      period: z
        .string()
        .regex(/^\d{4}-\d{2}$/)
        .optional(),
    }),
    output: z.object({ pulled: z.number().int(), present: z.number().int() }),
  },
  /** Moves this workstation's months and reviews into the team ledger (nothing is signed by the move), and says what moved. */
  'team:move-in': { input: Empty, output: TeamMoveIn },
  'settings:get': { input: Empty, output: UiSettings },
  'settings:save': { input: UiSettings, output: UiSettings },
  /** A month's close: its exceptions (with reviews), what is open, the sign-off, and what changed since it. */
  'close:state': { input: ReportRef, output: MonthCloseView },
  /**
   * Reviews one exception or a group of them alike, in one transaction: `accepted` needs a note (why); `open` undoes a
   * review. Refused while the month is Prepared or Approved, and for an exception the month does not have.
   */
  'close:review': {
    input: ReportRef.extend({
      exceptionIds: z.array(z.string().min(1).max(2000)).min(1).max(MAX_REVIEWS_AT_ONCE),
      state: ReviewState,
      note: z.string().max(2000),
    }),
    output: MonthCloseView,
  },
  /** Draft → Prepared by the signed-in identity, when nothing is open (refused with the code `control` otherwise). */
  'close:prepare': { input: ReportRef, output: MonthCloseView },
  /** Prepared → Approved by a second person: refused for the preparer, and for who accepted a high exception. */
  'close:approve': { input: ReportRef, output: MonthCloseView },
  /** Back to Draft, with a reason; an Approved month by an approver only. */
  'close:reopen': { input: ReportRef.extend({ reason: z.string().trim().min(1, 'is required').max(2000) }), output: MonthCloseView },
  /** The month's checklist: each step with its due business day, who did it and when, overdue ones marked. */
  'close:checklist': { input: ReportRef, output: Checklist },
  /** The close calendar (the team's with a team ledger); with `calendar`, replaces it. */
  'close:calendar': { input: z.object({ calendar: CloseCalendar.optional() }), output: CloseCalendar },
  /** The month's close log, oldest first, with its hash chain checked. */
  'close:log': { input: ReportRef, output: CloseLog },
  /** The month's evidence pack for an auditor, as one PDF handed to the user (save dialog or download). */
  'close:evidence': { input: ReportRef, output: FileResult },
  /** `afterId` against `beforeId` (two months of one service). */
  'close:compare': { input: z.object({ beforeId: z.string().uuid(), afterId: z.string().uuid() }), output: MonthComparison },
  /** Changes `from` + 1 … `from` + `count` of a comparison close:compare answered, as `view` shows them, and how many it shows. */
  'close:changes': {
    input: z.object({
      beforeId: z.string().uuid(),
      afterId: z.string().uuid(),
      view: ChangeView,
      from: z.number().int().nonnegative().max(100_000_000),
      count: z.number().int().positive().max(CHANGES_PER_WINDOW),
      /** The list asking, when it opens a view: that view takes the place of the one it opened before (see changeWindow). */
      list: z.string().uuid().optional(),
    }),
    output: ChangeWindow,
  },
  /** The months of the report's service and reseller in the ledger (newest fetch of each period), oldest first. */
  'close:months': { input: ReportRef, output: z.array(MonthSummary) },
  /** Every saved fetch's state in its month's close (Draft, Prepared, Approved) and whether a newer fetch supersedes it. */
  'close:fetch-states': { input: Empty, output: z.array(FetchState) },
  /** A profile's check thresholds; with `thresholds`, sets them. */
  'close:thresholds': { input: ProfileRef.extend({ thresholds: CheckThresholds.optional() }), output: CheckThresholds },
  /** What a trend can be scoped to: organizations, services and groups over every month of the report's service and reseller. */
  'close:trend-scopes': { input: ReportRef, output: TrendScopes },
  /** Sales, cost and margin of a scope over every month (one series per currency pair), and the month's top movers. */
  'close:trends': { input: ReportRef.extend({ scope: TrendScope }), output: Trends },
  /** The month's reference currency and rates, and the converted total beside the native amounts. */
  'close:rates': { input: ReportRef, output: RatesView },
  /** Replaces the month's rates (1 unit of `currency` = `rate` × reference); a null reference currency removes them. Refused while signed off. */
  'close:set-rates': {
    input: ReportRef.extend({
      referenceCurrency: z.string().trim().max(10).nullable(),
      rates: z.array(z.object({ currency: z.string().max(10), rate: z.string().max(40) })).max(500),
    }),
    output: RatesView,
  },
  /** Replaces the month's rates with a CSV file's (`currency,rate` lines, header optional, comma or semicolon); nothing is saved when a line is not usable. */
  'close:import-rates': {
    input: ReportRef.extend({ referenceCurrency: z.string().trim().min(1, 'is required').max(10), csv: z.string().max(1_000_000) }),
    output: RatesView,
  },
  /** Reads a CSV or XLSX file the user picked (bytes as base64); `sheet` picks a sheet of a workbook. */
  'consumption:parse': {
    input: z.object({ fileName: z.string().max(260), base64: z.string().max((MAX_CONSUMPTION_FILE_BYTES / 3) * 4), sheet: z.string().max(100).optional() }),
    output: ParsedFile,
  },
  'consumption:template': { input: z.object({ format: z.enum(['xlsx', 'csv']) }), output: FileResult },
  /**
   * `confirmRepeat` is the user's explicit yes to sending a batch identical to one that may already have arrived;
   * `period` the month the usage is for (last month when absent); `extraColumns` name the rows' own columns (kept, never sent).
   */
  'consumption:submit': {
    input: ProfileRef.extend({
      fileName: z.string().max(260),
      rows: z.array(InputRow).max(50_000),
      confirmRepeat: z.boolean().optional(),
      period: ReportPeriod.optional(),
      extraColumns: z.array(z.string().max(200)).max(MAX_EXTRA_COLUMNS).optional(),
    }),
    output: Submission,
  },
  /** Organization, subscription and product names of these subscription ids, from the newest saved reports of the profile's service and reseller. */
  'consumption:names': { input: ProfileRef.extend({ subscriptionIds: z.array(z.string().max(100)).max(50_000) }), output: SubscriptionNames },
  'consumption:history': { input: Empty, output: z.array(SubmissionSummary) },
  'consumption:get': { input: z.object({ submissionId: z.string().uuid() }), output: Submission },
  'consumption:resume': { input: z.object({ submissionId: z.string().uuid() }), output: Submission },
  'consumption:export-failed': { input: z.object({ submissionId: z.string().uuid(), format: z.enum(['xlsx', 'csv']) }), output: FileResult },
  /** The month's invoices as they would be made now (unnumbered): unmapped first, the drafts, rounding per currency. */
  'invoices:run': { input: ReportRef.extend({ invoiceDate: IsoDate.optional() }), output: InvoiceRunOverview },
  /** One invoice's lines as the run makes them now, asked for when it is opened (the run's answer leaves them out). */
  'invoices:lines': { input: ReportRef.extend({ invoice: InvoiceKey }), output: z.array(InvoiceLine) },
  /** The mapping and invoice settings of the month's Broker (service host and reseller). */
  'invoices:mapping': { input: ReportRef, output: z.object({ mapping: InvoiceMapping, settings: InvoiceSettingsView }) },
  /** Adds or replaces one customer or item of the mapping (the editor); the other entries stay. */
  'invoices:map': { input: ReportRef.extend({ customer: CustomerMapping.optional(), item: ItemMapping.optional() }), output: InvoiceMapping },
  /** Replaces the whole mapping with a CSV the user picked (all rows good, or nothing changes). */
  'invoices:import-mapping': { input: ReportRef.extend({ csv: z.string().max(20_000_000) }), output: InvoiceMapping },
  /** The mapping as CSV, with a row to fill in for each customer and service of the month it lacks. */
  'invoices:export-mapping': { input: ReportRef, output: FileResult },
  'invoices:settings': {
    input: ReportRef.extend({ settings: InvoiceSettings, next: NextInvoiceNumber.optional() }),
    output: InvoiceSettingsView,
  },
  /** Adjusts the month's invoices (a manual line, an excluded line, a withdrawal) with its reason, logged with the month. */
  'invoices:adjust': {
    input: ReportRef.extend({ adjustment: AdjustmentInput, reason: z.string().trim().min(1, 'is required').max(1000) }),
    output: InvoiceRunOverview,
  },
  /** A second person approves the adjustments made after the month's approval. */
  'invoices:approve-adjustments': { input: ReportRef, output: InvoiceRunOverview },
  /**
   * Numbers the month's invoices once (or takes the run already numbered) and writes its files: into a folder the
   * desktop asks for, or as downloads in the browser bridge; what the format cannot carry is listed, not written, and
   * what the accounting system would not import whole is listed with what to do.
   */
  'invoices:export': {
    input: ReportRef.extend({ format: InvoiceFormat, invoiceDate: IsoDate.optional() }),
    output: z.object({
      folder: z.string().nullable(),
      files: z.array(FileResult),
      cancelled: z.boolean(),
      invoices: z.number().int(),
      firstNumber: z.string(),
      lastNumber: z.string(),
      again: z.boolean(),
      refused: z.array(z.string()),
      warnings: z.array(z.string()),
      notApprovedBySecondPerson: z.boolean(),
    }),
  },
} as const;

/** The prefix under which service events reach the renderer over IPC (main sends, the preload listens). */
export const EVENT_PREFIX = 'closebook-event:';

export const events = {
  'connection:state': ConnectionState,
  /** A report job after each change (its state, polls, next check, the saved report when done). */
  'report:progress': ReportJob,
  /** A connection test's step (signing in, listing organizations, waiting to retry). */
  'profiles:test-progress': ConnectionTestProgress,
  'consumption:progress': SubmissionSummary,
  /** First start after an upgrade: reports saved before the ledger being moved into it. */
  'reports:migration': z.object({ done: z.number().int(), total: z.number().int() }),
  /** A workbook export under way: billing lines written so far, of `total` when known (the whole report). */
  'reports:export-progress': z.object({ reportId: z.string(), lines: z.number().int().nonnegative(), total: z.number().int().nonnegative().nullable() }),
  /** A colleague changed a month on the team ledger (a review, a prepare, an approval, a fetch shared): read it again. */
  'team:changed': z.object({ action: z.string() }),
} as const;

export type Channels = typeof channels;
export type ChannelName = keyof Channels;
export type ChannelInput<C extends ChannelName> = z.input<Channels[C]['input']>;
export type ChannelOutput<C extends ChannelName> = z.output<Channels[C]['output']>;
export type EventName = keyof typeof events;
export type EventPayload<E extends EventName> = z.output<(typeof events)[E]>;

export const channelNames = Object.keys(channels) as ChannelName[];
export const eventNames = Object.keys(events) as EventName[];

export function isChannelName(value: unknown): value is ChannelName {
  return typeof value === 'string' && Object.hasOwn(channels, value);
}

/** Every reply across IPC or the bridge: errors are values, because thrown errors arrive mangled. */
export type Reply<T> = { ok: true; data: T } | { ok: false; error: AppErrorShape };

/** The service a host exposes: one async handler per channel. */
export type ServiceHandlers = {
  [C in ChannelName]: (input: z.output<Channels[C]['input']>) => Promise<ChannelOutput<C>>;
};

/** What the preload exposes as `window.closebook`, and what the browser bridge imitates. */
export interface ClosebookBridge {
  invoke<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<Reply<ChannelOutput<C>>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}
