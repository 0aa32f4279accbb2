import { type ParsedTokenInfo, Tokenizer, TokenType } from '@streamparser/json';
import { countText, pastLimit, REPORT_LIMITS } from './report-limits';

/**
 * The token-level half of the billing report reader: JSON's grammar checked token by token on a stack of open
 * containers, with the bounds on nesting, texts and numbers, and the path of the value being read for messages.
 * What each container means to the report is left to the subclass (report-assembler.ts), so the grammar is read
 * in one place and the report's parts in another.
 */

/** A JSON number as the service wrote it: its literal text, so nothing is rounded on the way to a DECIMAL. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** The tokenizer with numbers kept as written (JsonNumber). */
export class ExactNumberTokenizer extends Tokenizer {
  protected override parseNumber(text: string): number {
    return new JsonNumber(text) as unknown as number;
  }
}

/** What a container is to the reader: a part of the report, a value being kept, or one skipped. */
export type Role =
  | 'wrapper'
  | 'report'
  | 'entries'
  | 'entry'
  | 'organizations'
  | 'organization'
  | 'services'
  | 'service'
  | 'items'
  | 'subscription'
  | 'products'
  | 'line'
  | 'groups'
  | 'meta'
  | 'skip';

/** Where in its container the reader is, as JSON's grammar goes. */
const enum At {
  KeyOrEnd, // just after {
  Key, // after a comma in an object
  Colon,
  Value, // after a colon, or after a comma in a list
  ValueOrEnd, // just after [
  CommaOrEnd,
}

export interface Frame {
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

/** A position in the text that breaks JSON's grammar. */
export class BrokenJson extends Error {
  constructor(readonly offset: number) {
    super(`broken at byte ${countText(offset)}`);
  }
}

/**
 * Takes the tokenizer's tokens, checks them against JSON's grammar and the bounds, and tells the subclass what
 * each one is: a container opening where a value is expected (`open`), a key (`keyRead`), a text, number, true,
 * false or null (`scalar`), a container complete (`closed`). Each token costs the same however deep it sits.
 */
export abstract class ReportTokens {
  private readonly frames: Frame[] = [];
  private started = false;
  private done = false;

  get complete(): boolean {
    return this.done;
  }

  get empty(): boolean {
    return !this.started;
  }

  /** A container begins where `parent` expects a value: the subclass pushes its frame (`push`). */
  protected abstract open(parent: Frame | undefined, isList: boolean): void;
  /** A key of the object `frame`, before it is kept as the frame's key. */
  protected abstract keyRead(frame: Frame, key: string): void;
  /** A text, number, true, false or null where `parent` expects a value. */
  protected abstract scalar(parent: Frame | undefined, value: unknown): void;
  /** `frame` is complete and off the stack. */
  protected abstract closed(frame: Frame): void;

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
        if (ReportTokens.readingKey(frame)) {
          this.keyRead(frame as Frame, value as string);
          (frame as Frame).key = value as string;
          (frame as Frame).at = At.Colon;
          return;
        }
        this.expectValue(frame, offset);
        this.scalar(frame, value);
        this.advance(frame);
        return;
      case TokenType.NUMBER:
        this.checkNumber((value as unknown as JsonNumber).text, frame);
        this.expectValue(frame, offset);
        this.scalar(frame, value);
        this.advance(frame);
        return;
      case TokenType.TRUE:
      case TokenType.FALSE:
      case TokenType.NULL:
        this.expectValue(frame, offset);
        this.scalar(frame, value);
        this.advance(frame);
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

  /** Opens a container in `parent` as `role`, refused past REPORT_LIMITS.depth. */
  protected push(parent: Frame | undefined, role: Role, isList: boolean, path: string, value: Frame['value'] = null): Frame {
    if (this.frames.length >= REPORT_LIMITS.depth) {
      throw pastLimit(
        `nests values deeper than ${REPORT_LIMITS.depth} levels (at ${this.pathOf(this.slotName(parent)) || 'its start'}); a billing report needs 12`,
      );
    }
    const frame: Frame = {
      role,
      isList,
      at: isList ? At.ValueOrEnd : At.KeyOrEnd,
      key: '',
      index: 0,
      segment: this.slotName(parent) ?? '',
      path,
      entryNo: parent?.entryNo ?? 0,
      value,
    };
    this.frames.push(frame);
    return frame;
  }

  /**
   * The path of the value being read, for a message: the innermost part's path ("data.0.organizations.3"), then
   * the keys below it and `slot`, each cut at 40 characters, the whole at about 200.
   */
  protected pathOf(slot: string | null): string {
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

  private close(frame: Frame): void {
    this.frames.pop();
    this.closed(frame);
    this.advance(this.frames[this.frames.length - 1]);
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
    const key = ReportTokens.readingKey(frame);
    const where = this.pathOf(key ? null : this.slotName(frame));
    throw pastLimit(
      `holds ${key ? 'a field name' : 'a text'} of more than ${countText(REPORT_LIMITS.textCharacters)} characters${where ? ` at ${where}` : ''}`,
    );
  }

  private checkNumber(text: string, frame: Frame | undefined): void {
    if (text.length <= REPORT_LIMITS.numberCharacters) return;
    const where = this.pathOf(this.slotName(frame));
    throw pastLimit(`holds a number of more than ${countText(REPORT_LIMITS.numberCharacters)} characters${where ? ` at ${where}` : ''}`);
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
}
