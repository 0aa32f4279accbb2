import { type ParsedTokenInfo, Tokenizer, TokenType } from '@streamparser/json';
import { AppError } from '@shared/errors';

/**
 * The most one billing report may hold — a service's answer or a colleague's file, read by the same reader. Every
 * bound is checked as the report streams in, so a hostile body is refused after reading no more than the bound,
 * in time linear in its size, and memory never grows with it.
 */
export const REPORT_LIMITS = {
  /**
   * Nesting, counted in objects and lists. The report itself is 12 levels deep: an outer list (spec §2.3 allows
   * one), the result, `data`, an entry, `organizations`, an organization, `services`, a service, `items`, a
   * subscription, `products`, a line. 64 leaves 52 levels for fields the interface does not show.
   */
  depth: 64,
  /** Billing entries: one per billing date, so a month has at most 31 and a year 366. */
  entries: 1_000,
  /** Organizations in one report: a real month has up to 50,000 end customers; ten times that. */
  organizations: 500_000,
  /** Billing lines in one report: a real month has up to 1,000,000 (the size Closebook is measured at); five times that. */
  lines: 5_000_000,
  /**
   * Billing lines of one organization: even the largest customer is a part of a month; a whole real month
   * (1,000,000 lines) in one customer still passes. Its lines are handed over one by one, never held together.
   */
  linesPerOrganization: 1_000_000,
  /** Services and subscriptions in one report: each carries at least one line in a real month, so the lines' bound. */
  services: 5_000_000,
  subscriptions: 5_000_000,
  /** Groups of one organization (cost centres, account managers): a handful in practice; 1,000 is room. */
  groupsPerOrganization: 1_000,
  /**
   * One text (a value or a key) in characters. The ledger keeps at most 4,000 of a name or details and an amount is
   * at most 64; a field the interface does not show may hold more, but not a megabyte.
   */
  textCharacters: 1_000_000,
  /** One JSON number as written: an amount has at most 64 characters (ledgerDecimal); 1,000 is room for fields not shown. */
  numberCharacters: 1_000,
  /** Values in a saved file's summary (`meta`): about 20, plus 5 per currency pair in its totals. */
  metaValues: 10_000,
  /** Characters in that summary, its keys included: about 2,000 in a real one. */
  metaCharacters: 100_000,
} as const;

/**
 * Texts kept until their part is complete (an entry's dates, an organization's groups) are kept only to one
 * character past what their check allows (4,000 and 200): the check still refuses them in its own words, and a
 * thousand entries of megabyte-long dates do not sit in memory.
 */
const KEPT_TEXT = { entry: 4_001, group: 201 };

/** A JSON number as the service wrote it: its literal text, so nothing is rounded on the way to a DECIMAL. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

class ExactNumberTokenizer extends Tokenizer {
  protected override parseNumber(text: string): number {
    return new JsonNumber(text) as unknown as number;
  }
}

/** The parts of a report handed over in parts: their lines as they come, their own fields when they end. */
export type ReportLevel = 'organization' | 'service' | 'subscription';

/**
 * What the reader hands over as it reads, in the order of the report. A part's lines come before its own fields
 * are known to be complete (a service's `currencyCode` may even follow its `items`), so a part is announced when
 * its list of children starts (`children`, with its fields read so far) and handed over with all of them (`end`).
 */
export interface ReportReaderHandlers {
  /** An organization's services, a service's items or a subscription's products begin; `fields` are its own fields read so far. */
  children?(level: ReportLevel, fields: Readonly<Record<string, unknown>>, path: string): void;
  /** One billing line, with the fields the interface names (others are skipped); `path` names it ("data.0.organizations.3.services.0.items.1.products.0"). */
  line(line: unknown, path: string): void;
  /** An organization, service or subscription is complete: its own fields, its list of children given as [] (or as sent when it was no list). */
  end(level: ReportLevel, fields: unknown, path: string, entryNo: number): void;
}

export interface ReportShell {
  /** The status as sent (number, text or anything else), undefined when absent. */
  status: unknown;
  /** What `data` was: an array of billing entries, null, absent, or something else. */
  data: 'array' | 'null' | 'absent' | 'other';
  /** True for a report file saved by an earlier Closebook ({ meta, entries }), which has no status. */
  saved: boolean;
  /** That file's `meta` object, as written. */
  meta: unknown;
  /** Each billing entry's own fields (billingDate …), by entry index; its organizations went to the handler. */
  entries: Map<number, Record<string, unknown>>;
}

/** The fields of each part that are read; any other field is skipped without being kept. */
const ENTRY_FIELDS = new Set(['billingDate', 'billingContentStartDate', 'billingContentEndDate']);
const OWN_FIELDS: Record<ReportLevel | 'line', Set<string>> = {
  organization: new Set(['name', 'customerNumber', 'orgId']),
  service: new Set(['serviceName', 'serviceId', 'totalResellerPrice', 'totalCustomerPrice', 'currencyCode', 'customerCurrencyCode']),
  subscription: new Set(['itemName', 'subscriptionId', 'poNumber', 'quantity', 'totalResellerPrice', 'totalCustomerPrice', 'resellerPricePerUnit', 'customerPricePerUnit']),
  line: new Set(['productName', 'productId', 'itemCode', 'quantity', 'resellerPricePerUnit', 'customerPricePerUnit', 'totalResellerPrice', 'totalCustomerPrice', 'itemDetails']),
};
/** Each part's list of children (its key, which is also the role of that list). */
const CHILDREN = { organization: 'services', service: 'items', subscription: 'products' } as const;

/** What a container is to the reader: a part of the report, a value being kept, or one skipped. */
type Role =
  | 'wrapper' | 'report' | 'entries' | 'entry' | 'organizations' | 'organization' | 'services' | 'service' | 'items' | 'subscription' | 'products' | 'line'
  | 'groups' | 'meta' | 'skip';

/** Where in its container the reader is, as JSON's grammar goes. */
const enum At {
  KeyOrEnd, // just after {
  Key, // after a comma in an object
  Colon,
  Value, // after a colon, or after a comma in a list
  ValueOrEnd, // just after [
  CommaOrEnd,
}

interface Frame {
  role: Role;
  isList: boolean;
  at: At;
  /** The key being read (objects), or the index of the element being read (lists). */
  key: string;
  index: number;
  /** This container's key in its parent, for messages. */
  segment: string;
  /** The path of a part of the report ("data.0.organizations.3"); empty for skipped and kept values. */
  path: string;
  entryNo: number;
  /** A part's own fields, a group list, or a kept value being built. */
  value: Record<string, unknown> | unknown[] | null;
}

/** What a bound refused, said for the service; a file's import says it of the file. */
function tooMuch(what: string): AppError {
  return new AppError('bad-response', `The billing report ${what}. Nothing was saved; report it to the service if it repeats.`);
}

const count = (value: number) => value.toLocaleString('en');

/** Bytes at most per write to the tokenizer, so a long text or number is measured at least this often. */
const SLICE = 64 * 1024;

/** A position in the text that breaks JSON's grammar. */
class BrokenJson extends Error {
  constructor(readonly offset: number) {
    super(`broken at byte ${count(offset)}`);
  }
}

/**
 * Builds the report from the tokenizer's tokens: keeps only what is handed over (a line, a part's own fields,
 * an entry's dates, `status`, `meta`) and skips everything else by counting brackets, so each token costs the
 * same however deep or large the report is.
 */
class ReportAssembler {
  readonly shell: ReportShell = { status: undefined, data: 'absent', saved: false, meta: undefined, entries: new Map() };
  private readonly frames: Frame[] = [];
  private started = false;
  private done = false;
  private wrapped = false;
  private listSeen = false;
  private organizationPath = '';
  private readonly counts = { organizations: 0, services: 0, subscriptions: 0, lines: 0, organizationLines: 0, metaValues: 0, metaCharacters: 0 };

  constructor(private readonly handlers: ReportReaderHandlers) {}

  get complete(): boolean {
    return this.done;
  }

  get empty(): boolean {
    return !this.started;
  }

  write({ token, value, offset }: ParsedTokenInfo): void {
    const frame = this.frames[this.frames.length - 1];
    switch (token) {
      case TokenType.LEFT_BRACE:
      case TokenType.LEFT_BRACKET:
        this.expectValue(frame, offset);
        this.open(frame, token === TokenType.LEFT_BRACKET);
        return;
      case TokenType.RIGHT_BRACE:
        if (!frame || frame.isList || (frame.at !== At.KeyOrEnd && frame.at !== At.CommaOrEnd)) throw new BrokenJson(offset);
        this.close(frame);
        return;
      case TokenType.RIGHT_BRACKET:
        if (!frame || !frame.isList || (frame.at !== At.ValueOrEnd && frame.at !== At.CommaOrEnd)) throw new BrokenJson(offset);
        this.close(frame);
        return;
      case TokenType.COLON:
        if (!frame || frame.at !== At.Colon) throw new BrokenJson(offset);
        frame.at = At.Value;
        return;
      case TokenType.COMMA:
        if (!frame || frame.at !== At.CommaOrEnd) throw new BrokenJson(offset);
        frame.at = frame.isList ? At.Value : At.Key;
        return;
      case TokenType.STRING:
        this.checkText(value as string, frame);
        if (ReportAssembler.readingKey(frame)) {
          if ((frame as Frame).role === 'meta') this.metaCharacters((value as string).length);
          (frame as Frame).key = value as string;
          (frame as Frame).at = At.Colon;
          return;
        }
        this.expectValue(frame, offset);
        this.scalar(frame, value);
        return;
      case TokenType.NUMBER:
        this.checkNumber((value as unknown as JsonNumber).text, frame);
        this.expectValue(frame, offset);
        this.scalar(frame, value);
        return;
      case TokenType.TRUE:
      case TokenType.FALSE:
      case TokenType.NULL:
        this.expectValue(frame, offset);
        this.scalar(frame, value);
        return;
      default:
        throw new BrokenJson(offset);
    }
  }

  /** A text or number still arriving (the tokenizer's partial token at the end of a chunk): refused once too long. */
  partial({ token, value }: ParsedTokenInfo): void {
    const frame = this.frames[this.frames.length - 1];
    if (token === TokenType.STRING) this.checkText(value as string, frame);
    else if (token === TokenType.NUMBER) this.checkNumber((value as unknown as JsonNumber).text, frame);
  }

  /** The key or index of the value being read in `frame`. */
  private slotName(frame: Frame | undefined): string | null {
    return frame ? (frame.isList ? String(frame.index) : frame.key) : null;
  }

  private static readingKey(frame: Frame | undefined): boolean {
    return frame !== undefined && !frame.isList && (frame.at === At.KeyOrEnd || frame.at === At.Key);
  }

  private checkText(text: string, frame: Frame | undefined): void {
    if (text.length <= REPORT_LIMITS.textCharacters) return;
    const key = ReportAssembler.readingKey(frame);
    const where = this.pathOf(key ? null : this.slotName(frame));
    throw tooMuch(`holds ${key ? 'a field name' : 'a text'} of more than ${count(REPORT_LIMITS.textCharacters)} characters${where ? ` at ${where}` : ''}`);
  }

  private checkNumber(text: string, frame: Frame | undefined): void {
    if (text.length <= REPORT_LIMITS.numberCharacters) return;
    const where = this.pathOf(this.slotName(frame));
    throw tooMuch(`holds a number of more than ${count(REPORT_LIMITS.numberCharacters)} characters${where ? ` at ${where}` : ''}`);
  }

  private expectValue(frame: Frame | undefined, offset: number): void {
    if (frame ? frame.at !== At.Value && frame.at !== At.ValueOrEnd : this.done) {
      if (!frame && this.done) throw new SyntaxError('unexpected data after the end of the report');
      throw new BrokenJson(offset);
    }
    this.started = true;
  }

  /** Marks the value just read in `frame` as complete. */
  private advance(frame: Frame | undefined): void {
    if (!frame) {
      this.done = true;
      return;
    }
    frame.at = At.CommaOrEnd;
    if (frame.isList) frame.index++;
  }

  private push(parent: Frame | undefined, role: Role, isList: boolean, path: string, value: Frame['value'] = null): Frame {
    if (this.frames.length >= REPORT_LIMITS.depth) {
      throw tooMuch(`nests values deeper than ${REPORT_LIMITS.depth} levels (at ${this.pathOf(this.slotName(parent)) || 'its start'}); a billing report needs 12`);
    }
    const frame: Frame = {
      role, isList, at: isList ? At.ValueOrEnd : At.KeyOrEnd, key: '', index: 0, segment: this.slotName(parent) ?? '', path,
      entryNo: parent?.entryNo ?? 0, value,
    };
    this.frames.push(frame);
    return frame;
  }

  /** A container begins where `parent` expects a value: what it is to the report decides what is kept of it. */
  private open(parent: Frame | undefined, isList: boolean): void {
    if (!parent) {
      this.wrapped = isList;
      this.push(undefined, isList ? 'wrapper' : 'report', isList, '');
      return;
    }
    const role = parent.role;
    const key = parent.isList ? parent.index : parent.key;
    switch (role) {
      case 'skip':
        break;
      case 'wrapper':
        this.secondResult(parent);
        if (!isList) {
          this.push(parent, 'report', false, '');
          return;
        }
        break;
      case 'report':
        if (key === 'data' || key === 'entries') {
          this.list(isList ? 'array' : 'other');
          if (isList) {
            this.push(parent, 'entries', true, key);
            return;
          }
        } else if (key === 'status') this.shell.status = isList ? [] : {};
        else if (key === 'meta' && !this.wrapped) {
          const meta = isList ? [] : {};
          this.shell.meta = meta;
          this.counts.metaValues = 0;
          this.counts.metaCharacters = 0;
          this.push(parent, 'meta', isList, '', meta);
          return;
        }
        break;
      case 'entries': {
        const entryNo = this.element(parent, 'entries');
        if (isList) {
          this.shell.entries.set(entryNo, [] as unknown as Record<string, unknown>); // refused by the entry's check
          break;
        }
        const fields: Record<string, unknown> = {};
        this.shell.entries.set(entryNo, fields);
        this.push(parent, 'entry', false, `${parent.path}.${entryNo}`, fields).entryNo = entryNo;
        return;
      }
      case 'entry':
        if (key === 'organizations' && isList) {
          (parent.value as Record<string, unknown>).organizations = [];
          this.push(parent, 'organizations', true, `${parent.path}.${key}`);
          return;
        }
        if (key === 'organizations' || ENTRY_FIELDS.has(key as string)) (parent.value as Record<string, unknown>)[key as string] = isList ? [] : {};
        break;
      case 'organizations':
      case 'services':
      case 'items': {
        const level = role === 'organizations' ? 'organization' : role === 'services' ? 'service' : 'subscription';
        const path = `${parent.path}.${key}`;
        this.element(parent, level);
        if (level === 'organization') this.organizationPath = path;
        if (!isList) {
          this.push(parent, level, false, path, {});
          return;
        }
        this.handlers.end(level, [], path, parent.entryNo); // refused by the part's check
        break;
      }
      case 'products': {
        const path = `${parent.path}.${key}`;
        this.element(parent, 'line');
        if (!isList) {
          this.push(parent, 'line', false, path, {});
          return;
        }
        this.handlers.line([], path);
        break;
      }
      case 'organization':
      case 'service':
      case 'subscription': {
        const fields = parent.value as Record<string, unknown>;
        const listKey = CHILDREN[role];
        if (key === listKey && isList) {
          fields[key] = [];
          this.handlers.children?.(role, fields, parent.path);
          this.push(parent, key, true, `${parent.path}.${key}`);
          return;
        }
        if (role === 'organization' && key === 'organizationGroups' && isList) {
          const groups: unknown[] = [];
          fields[key] = groups;
          this.push(parent, 'groups', true, '', groups);
          return;
        }
        if (key === listKey || OWN_FIELDS[role].has(key as string) || key === 'organizationGroups') fields[key as string] = isList ? [] : {};
        break;
      }
      case 'line':
        if (OWN_FIELDS.line.has(key as string)) (parent.value as Record<string, unknown>)[key as string] = isList ? [] : {};
        break;
      case 'groups':
        this.group(parent, isList ? [] : {});
        break;
      case 'meta': {
        const value = isList ? [] : {};
        this.metaValue(parent, value);
        this.push(parent, 'meta', isList, '', value);
        return;
      }
    }
    // Anything else is skipped: only its brackets are counted, and a part's field that should have been text or a
    // number was given the empty container in its place, for the part's check to name.
    this.push(parent, 'skip', isList, '');
  }

  private close(frame: Frame): void {
    this.frames.pop();
    const { role, value, path, entryNo } = frame;
    if (role === 'organization' || role === 'service' || role === 'subscription') this.handlers.end(role, value, path, entryNo);
    else if (role === 'line') this.handlers.line(value, path);
    this.advance(this.frames[this.frames.length - 1]);
  }

  /** A text, number, true, false or null where `parent` expects a value. */
  private scalar(parent: Frame | undefined, value: unknown): void {
    if (parent) {
      const role = parent.role;
      const key = parent.isList ? parent.index : parent.key;
      switch (role) {
        case 'wrapper':
          this.secondResult(parent);
          break;
        case 'report':
          if (key === 'status') this.shell.status = value;
          else if (key === 'data' || key === 'entries') this.list(value === null ? 'null' : 'other');
          else if (key === 'meta' && !this.wrapped) this.shell.meta = plainNumber(value);
          break;
        case 'entries':
          this.shell.entries.set(this.element(parent, 'entries'), value as Record<string, unknown>);
          break;
        case 'entry':
          if (ENTRY_FIELDS.has(key as string) || key === 'organizations') (parent.value as Record<string, unknown>)[key as string] = cut(value, KEPT_TEXT.entry);
          break;
        case 'organizations':
        case 'services':
        case 'items': {
          const level = role === 'organizations' ? 'organization' : role === 'services' ? 'service' : 'subscription';
          this.element(parent, level);
          this.handlers.end(level, value, `${parent.path}.${key}`, parent.entryNo);
          break;
        }
        case 'products':
          this.element(parent, 'line');
          this.handlers.line(value, `${parent.path}.${key}`);
          break;
        case 'organization':
        case 'service':
        case 'subscription':
          if (OWN_FIELDS[role].has(key as string) || key === CHILDREN[role] || (role === 'organization' && key === 'organizationGroups')) (parent.value as Record<string, unknown>)[key as string] = value;
          break;
        case 'line':
          if (OWN_FIELDS.line.has(key as string)) (parent.value as Record<string, unknown>)[key as string] = value;
          break;
        case 'groups':
          this.group(parent, cut(value, KEPT_TEXT.group));
          break;
        case 'meta':
          this.metaValue(parent, value);
          break;
        default:
      }
    }
    this.advance(parent);
  }

  /** `data` or `entries` of the report: given once. */
  private list(kind: ReportShell['data']): void {
    if (this.listSeen) throw tooMuch('holds its list of billing entries twice (data or entries given more than once)');
    this.listSeen = true;
    this.shell.data = kind;
  }

  private secondResult(wrapper: Frame): void {
    if (wrapper.index > 0) throw new AppError('bad-response', 'The billing report holds more than one result; Closebook expects exactly one.');
  }

  /** A new element of a list of the report, counted against its bounds; returns its index. */
  private element(list: Frame, level: 'entries' | ReportLevel | 'line'): number {
    const index = list.index;
    const { counts } = this;
    switch (level) {
      case 'entries':
        if (index >= REPORT_LIMITS.entries) throw tooMuch(`holds more than ${count(REPORT_LIMITS.entries)} billing entries; a month has one per billing date`);
        if (list.segment === 'entries') this.shell.saved = true;
        break;
      case 'organization':
        if (++counts.organizations > REPORT_LIMITS.organizations) throw tooMuch(`holds more than ${count(REPORT_LIMITS.organizations)} organizations, more than Closebook reads in one report`);
        counts.organizationLines = 0;
        break;
      case 'service':
        if (++counts.services > REPORT_LIMITS.services) throw tooMuch(`holds more than ${count(REPORT_LIMITS.services)} services, more than Closebook reads in one report`);
        break;
      case 'subscription':
        if (++counts.subscriptions > REPORT_LIMITS.subscriptions) throw tooMuch(`holds more than ${count(REPORT_LIMITS.subscriptions)} subscriptions, more than Closebook reads in one report`);
        break;
      case 'line':
        if (++counts.lines > REPORT_LIMITS.lines) throw tooMuch(`holds more than ${count(REPORT_LIMITS.lines)} billing lines, more than Closebook reads in one report; request a shorter period`);
        if (++counts.organizationLines > REPORT_LIMITS.linesPerOrganization) {
          throw tooMuch(`holds more than ${count(REPORT_LIMITS.linesPerOrganization)} billing lines in one organization (at ${this.organizationPath}), more than Closebook reads for one customer`);
        }
        break;
    }
    return index;
  }

  private group(list: Frame, value: unknown): void {
    if (list.index >= REPORT_LIMITS.groupsPerOrganization) {
      throw tooMuch(`holds more than ${count(REPORT_LIMITS.groupsPerOrganization)} groups for one organization (at ${this.pathOf(null)})`);
    }
    (list.value as unknown[]).push(value);
  }

  /** A value of the summary: its numbers are counts, not money, so they are read as plain numbers. */
  private metaValue(parent: Frame, item: unknown): void {
    if (++this.counts.metaValues > REPORT_LIMITS.metaValues) throw tooMuch(`holds a summary ("meta") of more than ${count(REPORT_LIMITS.metaValues)} values; a summary has about 50`);
    if (typeof item === 'string') this.metaCharacters(item.length);
    const value = plainNumber(item);
    if (parent.isList) (parent.value as unknown[]).push(value);
    else Object.defineProperty(parent.value, parent.key, { value, enumerable: true, configurable: true, writable: true }); // "__proto__" stays a key
  }

  private metaCharacters(characters: number): void {
    if ((this.counts.metaCharacters += characters) > REPORT_LIMITS.metaCharacters) throw tooMuch(`holds a summary ("meta") of more than ${count(REPORT_LIMITS.metaCharacters)} characters; a summary has about 2,000`);
  }

  /**
   * The path of the value being read, for a message: the innermost part's path ("data.0.organizations.3"), then
   * the keys below it and `slot`, each cut at 40 characters, the whole at about 200.
   */
  private pathOf(slot: string | null): string {
    let at = this.frames.length - 1;
    while (at >= 0 && !(this.frames[at] as Frame).path) at--;
    const short = (segment: string) => (segment.length > 40 ? `${segment.slice(0, 40)}…` : segment);
    const parts = at >= 0 ? [(this.frames[at] as Frame).path] : [];
    for (let index = at + 1; index < this.frames.length; index++) {
      const { segment, role } = this.frames[index] as Frame;
      if (role !== 'report' && segment) parts.push(short(segment)); // the outer list's index is no part of a path
    }
    if (slot !== null) parts.push(short(slot));
    const text = parts.length > 16 ? `${parts.slice(0, 16).join('.')}…` : parts.join('.');
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  }
}

/**
 * Reads a billing report (spec §2.3) as a stream, handing over each billing line and each part's own fields as
 * soon as they are complete, so memory does not grow with the report — not even with one huge organization —
 * and every token costs the same however deep it sits. The result may be bare or wrapped in an outer array;
 * `status` and `data` may come in any order; unknown fields are skipped. Numbers arrive as JsonNumber.
 * REPORT_LIMITS bound what it reads; past a bound it stops with a message that names the bound.
 */
export async function readBillingReport(source: AsyncIterable<Uint8Array | string>, handlers: ReportReaderHandlers): Promise<ReportShell> {
  const tokenizer = new ExactNumberTokenizer({ emitPartialTokens: true });
  const assembler = new ReportAssembler(handlers);
  let offset = 0;
  // The tokenizer drops what is thrown while it hands over a partial number, so a refusal is kept and thrown after the write.
  let refused: unknown = null;
  tokenizer.onToken = (token) => {
    if (token.partial) {
      try {
        assembler.partial(token);
      } catch (error) {
        refused = error;
      }
      return;
    }
    offset = token.offset;
    assembler.write(token);
  };
  let bytes = 0;
  try {
    for await (const raw of source) {
      // A byte-order mark at the very start is allowed (files saved by some editors); JSON itself forbids it.
      const chunk = bytes === 0 ? stripByteOrderMark(raw) : raw;
      bytes += raw.length;
      for (let at = 0; at < chunk.length; at += SLICE) {
        tokenizer.write(typeof chunk === 'string' ? chunk.slice(at, at + SLICE) : chunk.subarray(at, at + SLICE));
        if (refused) throw refused;
      }
    }
    if (bytes === 0) throw new SyntaxError('the answer is empty');
    tokenizer.end();
    if (assembler.empty) throw new SyntaxError('the answer is empty');
    if (!assembler.complete) throw new SyntaxError('Parser ended in mid-parsing');
  } catch (error) {
    if (error instanceof AppError) throw error;
    const reason = readFailure(error, offset);
    throw new AppError('bad-response', `The billing report is not readable JSON (${reason}). Nothing was saved; try again, and report it to the service if it repeats.`);
  }
  return assembler.shell;
}

/** What went wrong reading, in words: zlib and the JSON tokenizer speak of their own states and token types. */
function readFailure(error: unknown, offset: number): string {
  if (error instanceof BrokenJson) return error.message;
  const message = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
  const code = String((error as NodeJS.ErrnoException | null)?.code);
  if (/^Z_/.test(code)) return 'the compressed data is damaged or cut short';
  if (code === 'ERR_ENCODING_INVALID_ENCODED_DATA') return 'it is not UTF-8 text';
  if (/ended in (the middle of a token|mid-parsing)/.test(message)) return 'it ends too early, as if cut short';
  if (/^Unexpected/.test(message)) return `broken at byte ${Number(/absolute position "(\d+)"/.exec(message)?.[1] ?? offset).toLocaleString('en')}`;
  return message;
}

function cut(value: unknown, characters: number): unknown {
  return typeof value === 'string' && value.length > characters ? value.slice(0, characters) : value;
}

function plainNumber(value: unknown): unknown {
  return value instanceof JsonNumber ? Number(value.text) : value;
}

function stripByteOrderMark(chunk: Uint8Array | string): Uint8Array | string {
  if (typeof chunk === 'string') return chunk.charCodeAt(0) === 0xfeff ? chunk.slice(1) : chunk;
  return chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
}
