import { useCallback, useEffect, useId, useRef, useState } from 'react';
import type { ChannelOutput } from '@shared/contract';
import {
  type AdjustmentInput,
  type CustomerMapping,
  DATE_FORMATS,
  type InvoiceFormat,
  type InvoiceLine,
  type InvoiceMapping,
  type InvoiceRunOverview,
  type InvoiceSummary,
  type ItemMapping,
  NextInvoiceNumber,
  type UnmappedCustomer,
  VatCategory,
  type VatTreatment,
} from '@shared/schemas/invoices';
import { call, errorMessage } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { escapeTo } from '@renderer/components/escape-to';
import { NumberValue } from '@renderer/components/NumberValue';
import { amountText, countOf, formatCount } from '@renderer/components/format-number';
import { formatDateTime } from '@renderer/components/format-time';
import { useAction } from '@renderer/hooks/use-action';
import { useFocusBackOnClose, useRowFocus } from '@renderer/hooks/keyboard-focus';
import { readTypedDecimal } from '@shared/typed-number';
import { EXPORTED_DATES_KEPT } from '@shared/model/invoice-date';
import './invoices.css';

type Settings = ChannelOutput<'invoices:settings'>;

const FORMATS: { id: InvoiceFormat; label: string }[] = [
  { id: 'xero', label: 'Xero (sales invoices CSV)' },
  { id: 'qbo', label: 'QuickBooks Online (invoices CSV)' },
  { id: 'ubl', label: 'E-invoices: EN 16931 / Peppol UBL' },
  { id: 'template', label: 'Your own template' },
];

const TREATMENTS: { id: VatTreatment; label: string }[] = [
  { id: 'domestic', label: "Domestic (the item's rate)" },
  { id: 'reverse-charge', label: 'EU reverse charge' },
  { id: 'outside-scope', label: 'Outside the scope of VAT' },
];

function Amounts({ amounts }: { amounts: { currency: string; amount: string }[] }): React.JSX.Element {
  return (
    <span className="invoices__amounts">
      {amounts.map((entry) => (
        <span key={entry.currency}>
          <NumberValue value={amountText(entry.amount, entry.currency)} /> <span className="ccy">{entry.currency}</span>
        </span>
      ))}
    </span>
  );
}

/** A small labelled input (the mapping editor's cells). */
function Input({ label, value, onChange, width }: { label: string; value: string; onChange: (value: string) => void; width?: string }): React.JSX.Element {
  const id = useId();
  return (
    <span className="invoices__input">
      <label htmlFor={id}>{label}</label>
      <input id={id} value={value} onChange={(event) => onChange(event.target.value)} style={width ? { width } : undefined} />
    </span>
  );
}

/** Maps one customer: its contact as the accounting system knows it, terms and VAT; the rest are optional. */
function CustomerForm({
  reportId,
  customer,
  initial,
  onSaved,
  onCancel,
}: {
  reportId: string;
  customer: Pick<UnmappedCustomer, 'orgId' | 'organization' | 'customerNumber'>;
  /** The customer's mapping, when it is edited. */
  initial?: CustomerMapping;
  onSaved: () => Promise<void>;
  /** Closes the editor, nothing saved (an entry of the mapping edited in place of its row). */
  onCancel?: () => void;
}): React.JSX.Element {
  const ids = useId();
  const [entry, setEntry] = useState({
    contactName: initial?.contactName ?? customer.organization,
    paymentTermsDays: String(initial?.paymentTermsDays ?? 30),
    vatTreatment: initial?.vatTreatment ?? ('domestic' as VatTreatment),
    country: initial?.country ?? '',
    buyerVatId: initial?.buyerVatId ?? '',
    endpoint: initial?.endpoint ?? '',
    buyerReference: initial?.buyerReference ?? '',
    taxCode: initial?.taxCode ?? '',
  });
  const action = useAction();
  const set = (key: keyof typeof entry) => (value: string) => setEntry({ ...entry, [key]: value });
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    const days = Number(entry.paymentTermsDays);
    if (!/^\d+$/.test(entry.paymentTermsDays.trim())) return action.setError('Payment terms are a whole number of days, like 30.');
    const mapped: CustomerMapping = {
      orgId: customer.orgId,
      customerNumber: customer.customerNumber,
      ...entry,
      country: entry.country.toUpperCase(),
      paymentTermsDays: days,
    };
    if (await action.run(() => call('invoices:map', { reportId, customer: mapped }), 'map')) await onSaved();
  };
  return (
    <form className="invoices__form" onSubmit={(event) => void save(event)} onKeyDown={escapeTo(onCancel)} aria-label={`Map ${customer.organization}`}>
      <Input label="Contact name" value={entry.contactName} onChange={set('contactName')} width="14rem" />
      <Input label="Terms (days)" value={entry.paymentTermsDays} onChange={set('paymentTermsDays')} width="4rem" />
      <span className="invoices__input">
        <label htmlFor={`${ids}-vat`}>VAT</label>
        <select id={`${ids}-vat`} value={entry.vatTreatment} onChange={(event) => setEntry({ ...entry, vatTreatment: event.target.value as VatTreatment })}>
          {TREATMENTS.map((treatment) => (
            <option key={treatment.id} value={treatment.id}>
              {treatment.label}
            </option>
          ))}
        </select>
      </span>
      {entry.vatTreatment !== 'domestic' ? <Input label="Tax code" value={entry.taxCode} onChange={set('taxCode')} width="9rem" /> : null}
      <Input label="Country" value={entry.country} onChange={set('country')} width="3.5rem" />
      <Input label="VAT id" value={entry.buyerVatId} onChange={set('buyerVatId')} width="9rem" />
      <Input label="Peppol id" value={entry.endpoint} onChange={set('endpoint')} width="10rem" />
      <Input label="Buyer reference" value={entry.buyerReference} onChange={set('buyerReference')} width="8rem" />
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Saving…' : initial ? 'Save' : 'Map'}
      </button>
      <CancelEdit onCancel={onCancel} busy={action.busy} />
      <ErrorNote message={action.error} />
    </form>
  );
}

/** Cancel for an editor opened in place of what it edits: closed, nothing saved. */
function CancelEdit({ onCancel, busy }: { onCancel: (() => void) | undefined; busy: boolean }): React.JSX.Element | null {
  return onCancel ? (
    <button type="button" className="link" onClick={onCancel} disabled={busy}>
      Cancel
    </button>
  ) : null;
}

/** What an item entry may be keyed by, as the editor offers it. */
interface ItemChoice {
  match: ItemMapping['match'];
  id: string;
  label: string;
}

/** A rate as typed, with a point (12,5 → 12.5, by the rule of every typed number); left as typed when it is not a number, for the contract to name. */
function typedDecimal(text: string): string {
  const reading = readTypedDecimal(text);
  return 'decimal' in reading ? reading.decimal : text.trim();
}

/** Maps a product, or a service's default item: revenue account, tax code and VAT (or edits an entry kept). */
function ItemForm({
  reportId,
  name,
  choices,
  initial,
  onSaved,
  onCancel,
}: {
  reportId: string;
  name: string;
  choices: ItemChoice[];
  initial?: ItemMapping;
  onSaved: () => Promise<void>;
  /** Closes the editor, nothing saved (an entry of the mapping edited in place of its row). */
  onCancel?: () => void;
}): React.JSX.Element {
  const [choice, setChoice] = useState(0);
  const [entry, setEntry] = useState({
    account: initial?.account ?? '',
    taxCode: initial?.taxCode ?? '',
    vatCategory: initial?.vatCategory ?? ('S' as VatCategory),
    vatRate: initial?.vatRate ?? '25',
    itemCode: initial?.itemCode ?? '',
    unitCode: initial?.unitCode ?? 'C62',
  });
  const action = useAction();
  const ids = useId();
  const set = (key: keyof typeof entry) => (value: string) => setEntry({ ...entry, [key]: value });
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    const key = choices[choice] ?? choices[0];
    if (!key) return;
    const mapped: ItemMapping = {
      exemptionReason: initial?.exemptionReason ?? '',
      description: initial?.description ?? '',
      ...entry,
      match: key.match,
      id: key.id,
      vatRate: typedDecimal(entry.vatRate),
    };
    if (await action.run(() => call('invoices:map', { reportId, item: mapped }), 'map')) await onSaved();
  };
  return (
    <form className="invoices__form" onSubmit={(event) => void save(event)} onKeyDown={escapeTo(onCancel)} aria-label={`Map ${name}`}>
      {choices.length > 1 ? (
        <span className="invoices__input">
          <label htmlFor={`${ids}-scope`}>For</label>
          <select id={`${ids}-scope`} value={choice} onChange={(event) => setChoice(Number(event.target.value))}>
            {choices.map((entryChoice, index) => (
              <option key={`${entryChoice.match}:${entryChoice.id}`} value={index}>
                {entryChoice.label}
              </option>
            ))}
          </select>
        </span>
      ) : null}
      <Input label="Account" value={entry.account} onChange={set('account')} width="5rem" />
      <Input label="Tax code" value={entry.taxCode} onChange={set('taxCode')} width="9rem" />
      <span className="invoices__input">
        <label htmlFor={`${ids}-category`}>VAT category</label>
        <select id={`${ids}-category`} value={entry.vatCategory} onChange={(event) => setEntry({ ...entry, vatCategory: event.target.value as VatCategory })}>
          {VatCategory.options.map((category) => (
            <option key={category}>{category}</option>
          ))}
        </select>
      </span>
      <Input label="Rate %" value={entry.vatRate} onChange={set('vatRate')} width="4rem" />
      <Input label="Item" value={entry.itemCode} onChange={set('itemCode')} width="8rem" />
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Saving…' : initial ? 'Save' : 'Map'}
      </button>
      <CancelEdit onCancel={onCancel} busy={action.busy} />
      <ErrorNote message={action.error} />
    </form>
  );
}

/**
 * A section shown on request, made (and its data asked for) only once opened: React renders a closed <details>'s
 * content all the same, and the mapping of a million-line month's 10,000 customers was 71,000 elements on the page.
 */
function MadeWhenOpened({
  summary,
  className = 'invoices__more',
  testId,
  children,
}: {
  summary: React.ReactNode;
  className?: string;
  testId?: string;
  children: () => React.ReactNode;
}): React.JSX.Element {
  const [open, setOpen] = useState(false);
  return (
    <details className={className} data-testid={testId} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>{summary}</summary>
      {open ? children() : null}
    </details>
  );
}

/** The mapping kept, each entry with an editor a click away (the whole of it is also the mapping CSV). */
function MappingList({ reportId, onSaved }: { reportId: string; onSaved: () => Promise<void> }): React.JSX.Element {
  const [mapping, setMapping] = useState<InvoiceMapping | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const load = useAction();
  const reload = useCallback(async () => {
    await load.run(async () => setMapping((await call('invoices:mapping', { reportId })).mapping), 'load');
  }, [reportId, load]);
  useEffect(() => {
    void reload();
  }, [reportId]);
  const saved = async () => {
    setEditing(null);
    await reload();
    await onSaved();
  };
  const cancel = () => setEditing(null);
  // The editor closed (saved or cancelled), the keyboard is back on its row's Edit.
  const lists = useRef<HTMLDivElement>(null);
  useFocusBackOnClose(editing, (key) => lists.current?.querySelector<HTMLElement>(`[data-focus-row="${CSS.escape(key)}"] button`));
  if (!mapping) return <ErrorNote message={load.error} />;
  const customers = [...mapping.customers].sort((a, b) => a.contactName.localeCompare(b.contactName));
  return (
    <div className="invoices__mapping" ref={lists}>
      <FoundAndPaged
        items={customers}
        textOf={(customer) => `${customer.contactName} ${customer.orgId} ${customer.customerNumber}`}
        label="Find a customer mapped"
        placeholder="Contact, id or number"
        testId="customers-shown"
      >
        {(shown) => (
          <table className="grid" aria-label="Customers mapped">
            <thead>
              <tr>
                <th>Contact</th>
                <th>Organization id</th>
                <th className="num">Terms</th>
                <th>VAT</th>
                <th aria-label="Edit" />
              </tr>
            </thead>
            <tbody>
              {shown.map((customer) => (
                <tr key={customer.orgId} data-focus-row={`c:${customer.orgId}`}>
                  {editing === `c:${customer.orgId}` ? (
                    <td colSpan={5}>
                      <CustomerForm
                        reportId={reportId}
                        customer={{ orgId: customer.orgId, organization: customer.contactName, customerNumber: customer.customerNumber }}
                        initial={customer}
                        onSaved={saved}
                        onCancel={cancel}
                      />
                    </td>
                  ) : (
                    <>
                      <td>{customer.contactName}</td>
                      <td className="muted">{customer.orgId}</td>
                      <td className="num">{customer.paymentTermsDays} days</td>
                      <td>{TREATMENTS.find((treatment) => treatment.id === customer.vatTreatment)?.label}</td>
                      <EditCell onEdit={() => setEditing(`c:${customer.orgId}`)} />
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </FoundAndPaged>
      <table className="grid" aria-label="Items mapped">
        <thead>
          <tr>
            <th>Matches</th>
            <th>Account</th>
            <th>Tax</th>
            <th aria-label="Edit" />
          </tr>
        </thead>
        <tbody>
          {mapping.items.map((item) => (
            <tr key={`${item.match}:${item.id}`} data-focus-row={`i:${item.match}:${item.id}`}>
              {editing === `i:${item.match}:${item.id}` ? (
                <td colSpan={4}>
                  <ItemForm
                    reportId={reportId}
                    name={`${item.match} ${item.id}`}
                    choices={[{ match: item.match, id: item.id, label: item.id }]}
                    initial={item}
                    onSaved={saved}
                    onCancel={cancel}
                  />
                </td>
              ) : (
                <>
                  <td className="invoices__key" title={`${item.match} ${item.id}`}>
                    {item.match} {item.id}
                  </td>
                  <td>{item.account}</td>
                  <td>
                    {item.vatCategory} {item.vatRate}% · {item.taxCode}
                  </td>
                  <EditCell onEdit={() => setEditing(`i:${item.match}:${item.id}`)} />
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The last cell of a kept mapping's row: Edit opens the row's form in its place. */
function EditCell({ onEdit }: { onEdit: () => void }): React.JSX.Element {
  return (
    <td>
      <button type="button" className="link" onClick={onEdit}>
        Edit
      </button>
    </td>
  );
}

/**
 * Asks for the reason of an adjustment in place (a desktop window has no prompt()), then makes it: once, the button
 * busy meanwhile; a refusal is said beside it and the reason kept, to try again.
 */
function ReasonButton({ label, onReason }: { label: string; onReason: (reason: string) => Promise<void> }): React.JSX.Element {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const action = useAction();
  const opener = useRef<HTMLButtonElement>(null);
  useFocusBackOnClose(open, () => opener.current);
  if (!open)
    return (
      <button type="button" className="link" onClick={() => setOpen(true)} ref={opener}>
        {label}
      </button>
    );
  const cancel = () => {
    setOpen(false);
    setReason('');
    action.clearError();
  };
  return (
    <form
      className="invoices__reason"
      onSubmit={(event) => {
        event.preventDefault();
        if (!reason.trim() || action.busy) return;
        void action.run(async () => {
          await onReason(reason.trim());
          setOpen(false);
        });
      }}
    >
      <input
        aria-label={`Reason: ${label}`}
        placeholder="Reason"
        value={reason}
        onChange={(event) => setReason(event.target.value)}
        onKeyDown={escapeTo(action.busy ? undefined : cancel)}
        autoFocus
      />
      <button type="submit" disabled={!reason.trim() || action.busy}>
        {label}
      </button>
      <button type="button" className="link" onClick={cancel} disabled={action.busy}>
        Cancel
      </button>
      <ErrorNote message={action.error} />
    </form>
  );
}

/**
 * Adds a line to a customer's invoice by hand: what it says, its amount (read by the rule of every typed number: an
 * ambiguous "1,234" is asked about, never taken for 1.234), the item it is booked and taxed as. Added once — the
 * button busy meanwhile — then the form is emptied; a refusal is said beside it, with what was typed kept.
 */
function ManualLineForm({ invoice, items, onAdjust }: { invoice: InvoiceSummary; items: [string, string][]; onAdjust: Adjust }): React.JSX.Element {
  const empty = { description: '', amount: '', item: items[0]?.[0] ?? '', reason: '' };
  const [entry, setEntry] = useState(empty);
  const set = (key: keyof typeof entry) => (value: string) => setEntry({ ...entry, [key]: value });
  const action = useAction();
  return (
    <form
      className="invoices__form"
      aria-label={`Add a line to ${invoice.contactName}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (action.busy) return;
        const reading = readTypedDecimal(entry.amount);
        if (!('decimal' in reading)) return action.setError(`Amount: ${reading.problem}`);
        const adjustment = {
          kind: 'manual' as const,
          orgId: invoice.orgId,
          currency: invoice.currency,
          description: entry.description.trim(),
          amount: reading.decimal,
          item: entry.item,
        };
        void action.run(async () => {
          await onAdjust(adjustment, entry.reason);
          setEntry({ ...empty, item: entry.item });
        });
      }}
    >
      <Input label="Description" value={entry.description} onChange={set('description')} width="14rem" />
      <Input label={`Amount (${invoice.currency})`} value={entry.amount} onChange={set('amount')} width="7rem" />
      <span className="invoices__input">
        <label htmlFor={`${invoice.orgKey}-${invoice.currency}-item`}>Booked as</label>
        <select id={`${invoice.orgKey}-${invoice.currency}-item`} value={entry.item} onChange={(event) => set('item')(event.target.value)}>
          {items.map(([item, label]) => (
            <option key={item} value={item}>
              {label}
            </option>
          ))}
        </select>
      </span>
      <Input label="Reason" value={entry.reason} onChange={set('reason')} width="12rem" />
      <button type="submit" disabled={!entry.description.trim() || !entry.amount.trim() || !entry.reason.trim() || action.busy}>
        {action.busy ? 'Adding…' : 'Add the line'}
      </button>
      <ErrorNote message={action.error} />
    </form>
  );
}

/** Makes an adjustment; rejects with the refusal, for the form that asked to say it beside itself. */
type Adjust = (adjustment: AdjustmentInput, reason: string) => Promise<void>;

/** A draft invoice, summed; opened, its lines are asked for (a month of a million billing lines has 600,000 of them). */
function DraftInvoice({ reportId, invoice, items, onAdjust }: DraftProps): React.JSX.Element {
  const summary = (
    <>
      <span className="invoices__who">
        {invoice.kind === 'credit-note' ? <span className="state-badge">Credit note</span> : null} {invoice.contactName}
        {invoice.po ? <span className="muted"> · PO {invoice.po}</span> : null}
      </span>
      <span className="num">{countOf(invoice.lineCount, 'line')}</span>
      <span className="num">
        <NumberValue value={amountText(invoice.netTotal, invoice.currency)} /> <span className="ccy">{invoice.currency}</span>
      </span>
      <span className="num muted">
        VAT <NumberValue value={amountText(invoice.vatTotal, invoice.currency)} />
      </span>
      <span className="muted">due {invoice.dueDate}</span>
    </>
  );
  return (
    <MadeWhenOpened summary={summary} className="invoices__draft" testId="draft-invoice">
      {() => <DraftLines reportId={reportId} invoice={invoice} items={items} onAdjust={onAdjust} />}
    </MadeWhenOpened>
  );
}

/** How many entries a long list puts on the page at a time: a month can have 10,000 invoices and customers. */
const AT_A_TIME = 100;

/**
 * A long list a hundred entries at a time, with a search once there are more (every word typed must be in the
 * entry's text) and a button for the next hundred; `children` puts the entries shown on the page.
 */
function FoundAndPaged<T>({
  items,
  textOf,
  label,
  placeholder,
  testId,
  children,
}: {
  items: readonly T[];
  textOf: (item: T) => string;
  label: string;
  placeholder: string;
  testId: string;
  children: (shown: readonly T[]) => React.ReactNode;
}): React.JSX.Element {
  const [search, setSearch] = useState('');
  const [shown, setShown] = useState(AT_A_TIME);
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  const found = words.length ? items.filter((item) => words.every((word) => textOf(item).toLowerCase().includes(word))) : items;
  return (
    <>
      {items.length > AT_A_TIME ? (
        <p className="invoices__find">
          <input
            type="search"
            aria-label={label}
            placeholder={placeholder}
            value={search}
            onChange={(event) => {
              setSearch(event.target.value);
              setShown(AT_A_TIME);
            }}
          />{' '}
          <span className="muted" data-testid={testId}>
            {found.length > shown ? `${formatCount(shown)} of ${formatCount(found.length)}` : formatCount(found.length)}
            {words.length ? ' found' : ''}
          </span>
        </p>
      ) : null}
      {children(found.slice(0, shown))}
      {found.length > shown ? (
        <button type="button" onClick={() => setShown(shown + AT_A_TIME)}>
          Show {formatCount(Math.min(AT_A_TIME, found.length - shown))} more
        </button>
      ) : null}
    </>
  );
}

/** The drafts, a hundred at a time, found by customer, number, PO or currency when there are more. */
function DraftInvoices({ reportId, invoices, items, onAdjust }: Omit<DraftProps, 'invoice'> & { invoices: InvoiceSummary[] }): React.JSX.Element {
  return (
    <FoundAndPaged
      items={invoices}
      textOf={(invoice) => `${invoice.contactName} ${invoice.organization} ${invoice.customerNumber} ${invoice.po} ${invoice.currency}`}
      label="Find an invoice"
      placeholder="Customer, number or PO"
      testId="invoices-shown"
    >
      {(shown) =>
        shown.map((invoice) => (
          <DraftInvoice key={`${invoice.orgKey}|${invoice.currency}|${invoice.po}`} reportId={reportId} invoice={invoice} items={items} onAdjust={onAdjust} />
        ))
      }
    </FoundAndPaged>
  );
}

interface DraftProps {
  reportId: string;
  invoice: InvoiceSummary;
  items: [string, string][];
  onAdjust: Adjust;
}

/**
 * An open invoice's lines, each with what adjusts it, and the form for a manual line. They are asked for again when
 * the run is made again (an adjustment, a mapping): the invoice then is a new one.
 */
function DraftLines({ reportId, invoice, items, onAdjust }: DraftProps): React.JSX.Element {
  const [lines, setLines] = useState<InvoiceLine[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setError(null);
    const { orgId, orgKey, currency, po } = invoice;
    call('invoices:lines', { reportId, invoice: { orgId, orgKey, currency, po } }).then(
      (answer) => current && setLines(answer),
      (failure: unknown) => current && setError(errorMessage(failure)),
    );
    return () => {
      current = false;
    };
  }, [reportId, invoice]);
  if (error) return <ErrorNote message={error} />;
  if (!lines)
    return (
      <p className="empty" aria-busy="true">
        Making {countOf(invoice.lineCount, 'line')}…
      </p>
    );
  return (
    <>
      <table className="grid invoices__lines">
        <thead>
          <tr>
            <th>Description</th>
            <th className="num">Quantity</th>
            <th className="num">Unit price</th>
            <th className="num">Net</th>
            <th>Account</th>
            <th>Tax</th>
            <th className="num">VAT</th>
            <th aria-label="Adjust" />
          </tr>
        </thead>
        <tbody>
          {lines.map((line, index) => (
            <tr key={index}>
              <td title={`${line.description} · ${line.item} · ${countOf(line.billingLines, 'billing line')} · exact ${line.exactAmount}`}>
                {line.description}
              </td>
              <td className="num">{line.quantity}</td>
              <td className="num">
                <NumberValue value={amountText(line.unitPrice, invoice.currency)} />
              </td>
              <td className="num">
                <NumberValue value={amountText(line.netAmount, invoice.currency)} />
              </td>
              <td>{line.account}</td>
              <td>
                {line.vatCategory} {line.vatRate}% · {line.taxCode}
              </td>
              <td className="num">
                <NumberValue value={amountText(line.vatAmount, invoice.currency)} />
              </td>
              <td>
                {line.adjustment ? (
                  <ReasonButton label="Withdraw" onReason={(reason) => onAdjust({ kind: 'withdraw', withdraws: line.adjustment as string }, reason)} />
                ) : (
                  <ReasonButton
                    label="Leave out"
                    onReason={(reason) =>
                      onAdjust(
                        { kind: 'exclude', orgId: invoice.orgId, currency: invoice.currency, lineKey: line.lineKey, label: line.description.slice(0, 300) },
                        reason,
                      )
                    }
                  />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ManualLineForm invoice={invoice} items={items} onAdjust={onAdjust} />
    </>
  );
}

/** Numbering, dates, what a line is, and the seller on e-invoices. */
function SettingsForm({ reportId, onSaved }: { reportId: string; onSaved: () => Promise<void> }): React.JSX.Element {
  const [settings, setSettings] = useState<Settings | null>(null);
  // The next number as typed: read when saved, so clearing the field to type 120 never leaves a 1 before it.
  const [nextTyped, setNextTyped] = useState<string | null>(null);
  const action = useAction();
  useEffect(() => {
    void action.run(async () => setSettings((await call('invoices:mapping', { reportId })).settings), 'load');
  }, [reportId]);
  if (!settings) return <ErrorNote message={action.error} />;
  const { next: nextKept, ...rest } = settings;
  const seller = (key: keyof Settings['seller']) => (value: string) => setSettings({ ...settings, seller: { ...settings.seller, [key]: value } });
  const save = async (event: React.FormEvent) => {
    event.preventDefault();
    const typed = (nextTyped ?? String(nextKept)).trim();
    const wrong = /^\d+$/.test(typed) ? NextInvoiceNumber.safeParse(Number(typed)).error?.issues[0]?.message : 'is a whole number';
    if (wrong) return action.setError(`The next number ${wrong} (not "${typed}").`);
    const saved = await action.run(() => call('invoices:settings', { reportId, settings: rest, next: Number(typed) }), 'save');
    if (saved) {
      // What was typed while these were saved stays in its field, to be saved (or refused) next.
      setSettings((current) => (current === settings ? saved : current && { ...current, next: saved.next }));
      setNextTyped((current) => (current === nextTyped ? null : current));
      await onSaved();
    }
  };
  return (
    <form className="invoices__settings" onSubmit={(event) => void save(event)} aria-label="Invoice settings">
      <Input label="Number prefix" value={settings.prefix} onChange={(prefix) => setSettings({ ...settings, prefix })} width="6rem" />
      <Input label="Next number" value={nextTyped ?? String(nextKept)} onChange={setNextTyped} width="7rem" />
      <span className="invoices__input">
        <label htmlFor={`${reportId}-dates`}>Dates</label>
        <select
          id={`${reportId}-dates`}
          value={settings.dateFormat}
          onChange={(event) => setSettings({ ...settings, dateFormat: event.target.value as Settings['dateFormat'] })}
        >
          {DATE_FORMATS.map((format) => (
            <option key={format}>{format}</option>
          ))}
        </select>
      </span>
      <span className="invoices__input">
        <label htmlFor={`${reportId}-lines`}>A line per</label>
        <select
          id={`${reportId}-lines`}
          value={settings.linesPer}
          onChange={(event) => setSettings({ ...settings, linesPer: event.target.value as Settings['linesPer'] })}
        >
          <option value="subscription">subscription</option>
          <option value="product">product and price</option>
        </select>
      </span>
      <label className="invoices__check">
        <input type="checkbox" checked={settings.splitByPo} onChange={(event) => setSettings({ ...settings, splitByPo: event.target.checked })} /> An invoice
        per PO number
      </label>
      <fieldset>
        <legend>Seller on e-invoices</legend>
        <Input label="Name" value={settings.seller.name} onChange={seller('name')} width="12rem" />
        <Input label="VAT id" value={settings.seller.vatId} onChange={seller('vatId')} width="9rem" />
        <Input label="Country" value={settings.seller.country} onChange={seller('country')} width="3.5rem" />
        <Input label="Peppol id" value={settings.seller.endpoint} onChange={seller('endpoint')} width="10rem" />
        <Input label="IBAN" value={settings.seller.iban} onChange={seller('iban')} width="14rem" />
      </fieldset>
      <button type="submit" disabled={action.busy}>
        {action.busy ? 'Saving…' : 'Save settings'}
      </button>
      <ErrorNote message={action.error} />
    </form>
  );
}

/** A product to map, as its row is known (the same product may be billed under two services). */
const itemKey = (item: { productId: string; itemCode: string; serviceId: string }) => `${item.productId}|${item.itemCode}|${item.serviceId}`;

/**
 * The month's invoices: what is not mapped yet first (with the editor beside each), then the drafts with their lines,
 * the totals per currency with the rounding difference explained, and the export — once the month is ready.
 */
export function InvoicesPanel({ reportId }: { reportId: string }): React.JSX.Element {
  const [run, setRun] = useState<InvoiceRunOverview | null>(null);
  const [format, setFormat] = useState<InvoiceFormat>('xero');
  const [invoiceDate, setInvoiceDate] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const load = useAction();
  const action = useAction();
  const reload = useCallback(async () => {
    await load.run(async () => setRun(await call('invoices:run', { reportId, ...(invoiceDate ? { invoiceDate } : {}) })), 'load');
  }, [reportId, invoiceDate]);
  useEffect(() => {
    void reload();
  }, [reload]);
  // A customer or product mapped leaves the list: the keyboard goes on to the next one's first field, and once none is
  // left, to Export invoices (or, while it waits, to what the month still waits for).
  const unmapped = useRef<HTMLDivElement>(null);
  const exportButton = useRef<HTMLButtonElement>(null);
  const readiness = useRef<HTMLParagraphElement>(null);
  const { handOn } = useRowFocus(
    unmapped,
    useCallback(() => (exportButton.current?.disabled ? readiness.current : exportButton.current), []),
    'input:not(:disabled), select:not(:disabled), button:not(:disabled)',
  );
  const mapped = (key: string) => async () => {
    await handOn(key, async () => {
      await reload();
      return true;
    });
  };

  const importMapping = (file: File | undefined) => {
    if (!file) return;
    setNotice(null);
    void action.run(async () => {
      const mapping = await call('invoices:import-mapping', { reportId, csv: await file.text() });
      setNotice(`Imported the mapping from ${file.name}: ${countOf(mapping.customers.length, 'customer')}, ${countOf(mapping.items.length, 'item')}.`);
      await reload();
    }, 'import');
  };
  const exportMapping = () => void action.run(async () => setNotice(receiveFile(await call('invoices:export-mapping', { reportId }))), 'export-mapping');
  const exportInvoices = () => {
    setNotice(null);
    void action.run(async () => {
      const done = await call('invoices:export', { reportId, format, ...(invoiceDate ? { invoiceDate } : {}) });
      if (done.cancelled) return;
      // In the browser each file is a download of its own; the desktop wrote them into the folder chosen.
      for (const file of done.files) receiveFile(file);
      const where = done.folder ? ` into ${done.folder}` : '';
      setNotice(
        `${done.again ? 'Wrote again' : 'Exported'} ${countOf(done.invoices, 'invoice')} (${done.firstNumber}–${done.lastNumber}) in ${countOf(done.files.length, 'file')}${where}.` +
          (done.notApprovedBySecondPerson ? ' Not approved by a second person.' : '') +
          (done.refused.length ? ` Not written: ${done.refused.join('; ')}.` : '') +
          (done.warnings.length ? ` Check before importing: ${done.warnings.join('; ')}.` : ''),
      );
      await reload();
    }, 'export');
  };

  const adjust: Adjust = async (adjustment, reason) => {
    setNotice(null);
    setRun(await call('invoices:adjust', { reportId, adjustment, reason }));
  };
  const approveAdjustments = () =>
    void action.run(async () => {
      setRun(await call('invoices:approve-adjustments', { reportId }));
      setNotice('Approved the adjustments: the month can be invoiced again.');
    }, 'approve');

  if (!run) return load.error ? <ErrorNote message={load.error} /> : <p className="empty">Making the month's invoices…</p>;
  const ready = run.blockers.length === 0;
  // Exported as it stands: exporting again writes the kept files, their numbers and dates included.
  const exportedAsItStands = run.changedSinceExport === 0;
  const awaitingApproval = run.blockers.some((blocker) => blocker.includes('approve-adjustments'));
  const items = run.items
    .map(({ item, account, taxCode }): [string, string] => [item, `${account} · ${taxCode} (${item})`])
    .sort(([, a], [, b]) => a.localeCompare(b));
  const customerName = (orgId: string) => run.invoices.find((invoice) => invoice.orgId === orgId)?.contactName ?? orgId;
  return (
    <section className="invoices" aria-label="Invoices">
      <p
        className={`invoices__readiness invoices__readiness--${run.readiness.word.toLowerCase().replace(/\W+/g, '-')}`}
        data-testid="invoice-readiness"
        ref={readiness}
        tabIndex={-1}
      >
        {run.readiness.line}
      </p>
      {run.changedSinceExport !== null ? (
        <p className="invoices__since" data-testid="changed-since-export">
          {exportedAsItStands
            ? 'Exported as it stands: exporting again writes the same files, with the same numbers.'
            : `Changed since the last export: the next export issues ${countOf(run.changedSinceExport, 'document')} — a credit note for each invoice that changed or went, and a new invoice for each that changed or came.`}
        </p>
      ) : null}
      {run.blockers.length ? (
        <ul className="invoices__blockers" aria-label="Before the invoices can be exported">
          {run.blockers.map((blocker) => (
            <li key={blocker}>{blocker}</li>
          ))}
        </ul>
      ) : null}

      <div className="invoices__bar">
        <span className="invoices__input">
          <label htmlFor={`${reportId}-format`}>Format</label>
          <select id={`${reportId}-format`} value={format} onChange={(event) => setFormat(event.target.value as InvoiceFormat)}>
            {FORMATS.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.label}
              </option>
            ))}
          </select>
        </span>
        <span className="invoices__input">
          <label htmlFor={`${reportId}-date`}>Invoice date</label>
          {/* The date the invoices will carry is shown, chosen or not: left empty, it looked like no date at all. */}
          <input
            id={`${reportId}-date`}
            type="date"
            value={invoiceDate || run.invoiceDate}
            onChange={(event) => setInvoiceDate(event.target.value)}
            disabled={exportedAsItStands}
            title={
              exportedAsItStands
                ? `${EXPORTED_DATES_KEPT}.`
                : 'Every invoice carries this date, and its due date follows from it: today unless you choose another.'
            }
            data-testid="invoice-date"
          />
        </span>
        <button
          type="button"
          className="primary"
          onClick={exportInvoices}
          disabled={!ready || action.busy}
          title={ready ? undefined : run.blockers[0]}
          ref={exportButton}
        >
          {action.running === 'export' ? 'Exporting…' : 'Export invoices'}
        </button>
        <button type="button" onClick={exportMapping} disabled={action.busy}>
          Mapping to fill in (CSV)
        </button>
        <label className="invoices__file">
          Import mapping (CSV)
          <input type="file" accept=".csv,text/csv" hidden onChange={(event) => importMapping(event.target.files?.[0])} data-testid="mapping-file" />
        </label>
      </div>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorNote message={action.error} />
      {/* The invoices made again after a change (a mapping or settings saved) and refused: what is shown is older. */}
      <ErrorNote message={load.error ? `The invoices shown are from before the last change: ${load.error}` : null} />

      <div ref={unmapped}>
        {run.unmappedCustomers.length ? (
          <section aria-label="Customers not mapped">
            <h3>Customers not mapped ({formatCount(run.unmappedCustomers.length)})</h3>
            {run.unmappedCustomers.map((customer) => (
              <div key={customer.orgKey} className="invoices__unmapped" data-testid="unmapped-customer" data-focus-row={customer.orgKey}>
                <p>
                  <strong>{customer.organization}</strong> <span className="muted">{customer.customerNumber || 'no customer number'}</span> ·{' '}
                  <Amounts amounts={customer.amounts} />
                </p>
                {customer.problem ? (
                  <p className="muted">{customer.problem}</p>
                ) : (
                  <CustomerForm reportId={reportId} customer={customer} onSaved={mapped(customer.orgKey)} />
                )}
              </div>
            ))}
          </section>
        ) : null}
        {run.unmappedItems.length ? (
          <section aria-label="Products not mapped">
            <h3>Products not mapped ({formatCount(run.unmappedItems.length)})</h3>
            {run.unmappedItems.map((item) => (
              <div key={itemKey(item)} className="invoices__unmapped" data-testid="unmapped-item" data-focus-row={itemKey(item)}>
                <p>
                  <strong>{item.productName}</strong> <span className="muted">{item.serviceName}</span> · <Amounts amounts={item.amounts} />
                </p>
                <ItemForm
                  reportId={reportId}
                  name={item.productName}
                  choices={[
                    ...(item.serviceId ? [{ match: 'service' as const, id: item.serviceId, label: `every product of ${item.serviceName}` }] : []),
                    { match: 'product' as const, id: item.productId, label: 'this product only' },
                  ]}
                  onSaved={mapped(itemKey(item))}
                />
              </div>
            ))}
          </section>
        ) : null}
      </div>

      {run.currencies.length ? (
        <table className="grid invoices__rounding" aria-label="Invoiced per currency">
          <thead>
            <tr>
              <th>Currency</th>
              <th className="num">Invoices</th>
              <th className="num">Invoiced (net)</th>
              <th className="num">Exact total, rounded once</th>
              <th className="num">Rounding difference</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {run.currencies.map((entry) => (
              <tr key={entry.currency} data-testid="invoice-currency">
                <td>{entry.currency}</td>
                <td className="num">{formatCount(entry.invoices)}</td>
                <td className="num">
                  <NumberValue value={amountText(entry.invoiced, entry.currency)} />
                </td>
                <td className="num">
                  <NumberValue value={amountText(entry.roundedOnce, entry.currency)} />
                </td>
                <td className="num">
                  <NumberValue value={amountText(entry.roundingDifference, entry.currency)} />
                </td>
                <td className="invoices__why">{entry.explanation}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      {run.invoices.length ? (
        <section aria-label="Draft invoices">
          <h3>
            {ready ? 'Invoices' : 'Draft invoices'} ({formatCount(run.invoices.length)}) · {run.periodText}
          </h3>
          <DraftInvoices reportId={reportId} invoices={run.invoices} items={items} onAdjust={adjust} />
        </section>
      ) : null}

      {run.adjustments.length ? (
        <section aria-label="Adjustments">
          <h3>Adjustments ({formatCount(run.adjustments.length)})</h3>
          <ul className="invoices__adjustments">
            {run.adjustments.map(({ adjustment, reason, by, at }) => (
              <li key={adjustment.id} data-testid="adjustment">
                {adjustment.kind === 'manual'
                  ? `Added "${adjustment.description}" ${adjustment.amount} ${adjustment.currency} to ${customerName(adjustment.orgId)}`
                  : adjustment.kind === 'exclude'
                    ? `Left out "${adjustment.label ?? adjustment.lineKey}" of ${customerName(adjustment.orgId)} (${adjustment.currency})`
                    : ''}{' '}
                — “{reason}”, {by}, {formatDateTime(at)}{' '}
                <ReasonButton label="Withdraw" onReason={(why) => adjust({ kind: 'withdraw', withdraws: adjustment.id }, why)} />
              </li>
            ))}
          </ul>
          {awaitingApproval ? (
            <button type="button" className="primary" onClick={approveAdjustments} disabled={action.busy}>
              Approve the adjustments
            </button>
          ) : null}
        </section>
      ) : null}

      {run.exported.length ? (
        <section aria-label="Exported">
          <h3>Exported</h3>
          <ul>
            {run.exported.map((entry) => (
              <li key={entry.runId}>
                {entry.firstNumber}–{entry.lastNumber} ({countOf(entry.invoices, 'invoice')}) by {entry.exportedBy}, {formatDateTime(entry.exportedAt)}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <MadeWhenOpened summary="The mapping">{() => <MappingList reportId={reportId} onSaved={reload} />}</MadeWhenOpened>
      <MadeWhenOpened summary="Numbering, dates and the seller">{() => <SettingsForm reportId={reportId} onSaved={reload} />}</MadeWhenOpened>
    </section>
  );
}
