import { AppError } from '@shared/errors';
import { countText, KEPT_TEXT, pastLimit, REPORT_LIMITS } from './report-limits';
import { CHILDREN, ENTRY_FIELDS, OWN_FIELDS, PART_OF_LIST, type ReportLevel, type ReportReaderHandlers, type ReportShell } from './report-parts';
import { type Frame, JsonNumber, ReportTokens } from './report-tokens';

/**
 * The report-level half of the billing report reader: what each container of the JSON is to the report (the
 * shell with its status, entries and summary; organizations, services, subscriptions and their lines), what is
 * kept of it and handed over, and the bounds on how many of each. The JSON grammar beneath it is report-tokens.ts.
 */

/**
 * Builds the report from the tokenizer's tokens: keeps only what is handed over (a line, a part's own fields,
 * an entry's dates, `status`, `meta`) and skips everything else by counting brackets, so each token costs the
 * same however deep or large the report is.
 */
export class ReportAssembler extends ReportTokens {
  readonly shell: ReportShell = { status: undefined, data: 'absent', saved: false, meta: undefined, entries: new Map() };
  private wrapped = false;
  private listSeen = false;
  private organizationPath = '';
  private readonly counts = { organizations: 0, services: 0, subscriptions: 0, lines: 0, organizationLines: 0, metaValues: 0, metaCharacters: 0 };

  constructor(private readonly handlers: ReportReaderHandlers) {
    super();
  }

  /** A container begins where `parent` expects a value: what it is to the report decides what is kept of it. */
  protected open(parent: Frame | undefined, isList: boolean): void {
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
        const level = PART_OF_LIST[role];
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

  protected keyRead(frame: Frame, key: string): void {
    if (frame.role === 'meta') this.metaCharacters(key.length);
  }

  protected closed({ role, value, path, entryNo }: Frame): void {
    if (role === 'organization' || role === 'service' || role === 'subscription') this.handlers.end(role, value, path, entryNo);
    else if (role === 'line') this.handlers.line(value, path);
  }

  /** A text, number, true, false or null where `parent` expects a value; the grammar then marks it read. */
  protected scalar(parent: Frame | undefined, value: unknown): void {
    if (!parent) return;
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
        const level = PART_OF_LIST[role];
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
        if (OWN_FIELDS[role].has(key as string) || key === CHILDREN[role] || (role === 'organization' && key === 'organizationGroups'))
          (parent.value as Record<string, unknown>)[key as string] = value;
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

  /** `data` or `entries` of the report: given once. */
  private list(kind: ReportShell['data']): void {
    if (this.listSeen) throw pastLimit('holds its list of billing entries twice (data or entries given more than once)');
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
        if (index >= REPORT_LIMITS.entries)
          throw pastLimit(`holds more than ${countText(REPORT_LIMITS.entries)} billing entries; a month has one per billing date`);
        if (list.segment === 'entries') this.shell.saved = true;
        break;
      case 'organization':
        if (++counts.organizations > REPORT_LIMITS.organizations)
          throw pastLimit(`holds more than ${countText(REPORT_LIMITS.organizations)} organizations, more than Closebook reads in one report`);
        counts.organizationLines = 0;
        break;
      case 'service':
        if (++counts.services > REPORT_LIMITS.services)
          throw pastLimit(`holds more than ${countText(REPORT_LIMITS.services)} services, more than Closebook reads in one report`);
        break;
      case 'subscription':
        if (++counts.subscriptions > REPORT_LIMITS.subscriptions)
          throw pastLimit(`holds more than ${countText(REPORT_LIMITS.subscriptions)} subscriptions, more than Closebook reads in one report`);
        break;
      case 'line':
        if (++counts.lines > REPORT_LIMITS.lines)
          throw pastLimit(`holds more than ${countText(REPORT_LIMITS.lines)} billing lines, more than Closebook reads in one report; request a shorter period`);
        if (++counts.organizationLines > REPORT_LIMITS.linesPerOrganization) {
          throw pastLimit(
            `holds more than ${countText(REPORT_LIMITS.linesPerOrganization)} billing lines in one organization (at ${this.organizationPath}), more than Closebook reads for one customer`,
          );
        }
        break;
    }
    return index;
  }

  private group(list: Frame, value: unknown): void {
    if (list.index >= REPORT_LIMITS.groupsPerOrganization) {
      throw pastLimit(`holds more than ${countText(REPORT_LIMITS.groupsPerOrganization)} groups for one organization (at ${this.pathOf(null)})`);
    }
    (list.value as unknown[]).push(value);
  }

  /** A value of the summary: its numbers are counts, not money, so they are read as plain numbers. */
  private metaValue(parent: Frame, item: unknown): void {
    if (++this.counts.metaValues > REPORT_LIMITS.metaValues)
      throw pastLimit(`holds a summary ("meta") of more than ${countText(REPORT_LIMITS.metaValues)} values; a summary has about 50`);
    if (typeof item === 'string') this.metaCharacters(item.length);
    const value = plainNumber(item);
    if (parent.isList) (parent.value as unknown[]).push(value);
    else Object.defineProperty(parent.value, parent.key, { value, enumerable: true, configurable: true, writable: true }); // "__proto__" stays a key
  }

  private metaCharacters(characters: number): void {
    if ((this.counts.metaCharacters += characters) > REPORT_LIMITS.metaCharacters)
      throw pastLimit(`holds a summary ("meta") of more than ${countText(REPORT_LIMITS.metaCharacters)} characters; a summary has about 2,000`);
  }
}

/** A text kept only to `characters` (its check refuses it past that in its own words). */
function cut(value: unknown, characters: number): unknown {
  return typeof value === 'string' && value.length > characters ? value.slice(0, characters) : value;
}

/** A summary's number as a plain number: it is a count, not money. */
function plainNumber(value: unknown): unknown {
  return value instanceof JsonNumber ? Number(value.text) : value;
}
