import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SeededRandom } from '@twin/random';

/**
 * What the fault suite (`npm run test:faults`, files `*.faults.test.ts`) shares: seeded hostile values and
 * mutations of valid inputs, the rule for an unclear message, and the figures each boundary reports. One seed
 * drives every file, so a failure is reproduced by running again with the seed the table printed.
 */

/** The suite's seed: fixed, so CI is reproducible; set CLOSEBOOK_FUZZ_SEED to explore others. */
export const FUZZ_SEED = Number(process.env.CLOSEBOOK_FUZZ_SEED ?? 20_261_111) >>> 0;

/**
 * How many inputs a boundary tries: its own variable when set (CLOSEBOOK_FUZZ_REPORT_FILES=5000 …), else CI's count
 * times CLOSEBOOK_FUZZ_SCALE (1 in CI, where the whole run must stay within 20 minutes; `npm run test:soak` runs
 * every boundary at 4 times CI's count).
 */
export function fuzzCount(variable: string, inCi: number): number {
  const given = process.env[variable];
  if (given) return Number(given);
  return Math.max(1, Math.round(inCi * Number(process.env.CLOSEBOOK_FUZZ_SCALE ?? 1)));
}

/** The text dispatch answers when a handler fails unexpectedly: to the user it says nothing. */
const GENERIC_INTERNAL = /^(Something went wrong inside Closebook|Closebook produced an unexpected answer)/;

/** Words that, in a message, mean a value was turned into text carelessly — unless the input itself held them. */
const LEAKS: readonly [RegExp, string][] = [
  [/\[object Object\]/, '[object Object]'],
  [/\bundefined\b/, 'undefined'],
  [/\bNaN\b/, 'NaN'],
];

/**
 * Why a message shown to a user would be unclear, or null when it is fine: empty, longer than `maxLength`
 * (600 by default), a leaked `[object Object]`/`undefined`/`NaN` (not counted when the input held that text: a
 * message may quote what the user gave), a stack frame, the schema library's raw wording, or the generic
 * internal error.
 */
export function unclearReason(message: unknown, code?: string, options: { input?: unknown; maxLength?: number } = {}): string | null {
  const maxLength = options.maxLength ?? 600;
  if (typeof message !== 'string') return `message is ${typeof message}, not text`;
  if (!message.trim()) return 'empty message';
  if (message.length > maxLength) return `${message.length} characters long`;
  for (const [pattern, word] of LEAKS) {
    if (pattern.test(message) && !textsIn(options.input).some((text) => pattern.test(text))) return `contains "${word}"`;
  }
  if (/\n\s+at /.test(message) || /^\s{4}at /m.test(message)) return 'contains a stack frame';
  // The schema library's own wording: a bare "Invalid input" (a union) or a JavaScript type ("received JsonNumber").
  if (/\bInvalid input\b|\breceived (NaN|Infinity|[A-Z]\w+)\b|\bexpected (string|number|object|array|boolean), received\b/.test(message))
    return 'raw schema wording';
  if (code === 'internal' && GENERIC_INTERNAL.test(message)) return 'the generic internal error';
  return null;
}

/** The strings in a value and its keys (the first 10,000 nodes), to tell an echoed input from a leak. */
function textsIn(value: unknown): string[] {
  const texts: string[] = [];
  const queue: unknown[] = [value];
  const seen = new Set<unknown>();
  for (let visited = 0; queue.length && visited < 10_000; visited++) {
    const item = queue.shift();
    if (typeof item === 'string') texts.push(item);
    else if (item && typeof item === 'object' && !seen.has(item)) {
      seen.add(item);
      for (const [key, child] of item instanceof Map ? item.entries() : Object.entries(item)) queue.push(key, child);
    }
  }
  return texts;
}

/**
 * A value as short text for a figures note or an assertion message: JSON-like, cut at `max` characters while it is
 * written (a 5 MB string or 20,000 levels of nesting cost no more than a short value).
 */
export function preview(value: unknown, max = 160): string {
  let out = '';
  let cut = false;
  const write = (text: string) => {
    if (out.length + text.length > max) {
      out += text.slice(0, Math.max(0, max - out.length));
      cut = true;
    } else out += text;
    return !cut;
  };
  const walk = (item: unknown, depth: number): boolean => {
    if (typeof item === 'string') return write(JSON.stringify(item.length > max ? item.slice(0, max) : item).slice(0, item.length > max ? -1 : undefined));
    if (typeof item === 'bigint') return write(`${item}n`);
    if (item === null || typeof item !== 'object') return write(String(item));
    if (depth > 12) return write('…');
    if (item instanceof Date || item instanceof RegExp || item instanceof Error || ArrayBuffer.isView(item) || item instanceof Map || item instanceof Set)
      return write(`${item.constructor.name}(…)`);
    const entries: [string | null, unknown][] = Array.isArray(item)
      ? Array.from(item.slice(0, 20), (child): [null, unknown] => [null, child])
      : Object.entries(item).slice(0, 20);
    if (!write(Array.isArray(item) ? '[' : '{')) return false;
    for (const [index, [key, child]] of entries.entries()) {
      if (index > 0 && !write(',')) return false;
      if (key !== null && !write(`${JSON.stringify(key)}:`)) return false;
      if (!walk(child, depth + 1)) return false;
    }
    return write(Array.isArray(item) ? ']' : '}');
  };
  walk(value, 0);
  return cut ? `${out}…` : out;
}

const CONTROL = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('');

/** Strings that have broken parsers, file names, spreadsheets, logs and SQL elsewhere. */
const HOSTILE_STRINGS: readonly string[] = [
  '',
  ' ',
  '   \t  ',
  '\u0000',
  CONTROL,
  '\r\n',
  '\uFEFF',
  '\uFEFFSubscription ID',
  '\u202Egnp.exe',
  '\u200F\u05E9\u05DC\u05D5\u05DD \u0645\u0631\u062D\u0628\u0627',
  '\u200B\u200C\u200D\u2060',
  'A\u030A vs \u00C5',
  '\uD800',
  '\uDC00\uD800',
  '👩‍👩‍👧‍👦🇸🇪',
  '𝕮𝖑𝖔𝖘𝖊𝖇𝖔𝖔𝖐',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '9'.repeat(400),
  `0.${'1'.repeat(200)}`,
  '[object Object]',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '../../../../etc/passwd',
  '..\\..\\Windows\\System32',
  'C:\\con\\aux',
  'CON',
  'file:///etc/passwd',
  'https://evil.example/',
  'http://127.0.0.1:1/',
  'javascript:alert(1)',
  '<script>alert(1)</script>',
  "'; DROP TABLE reports; --",
  "' OR '1'='1",
  '$1',
  '%s%s%s%n',
  '${process.exit()}',
  '{{7*7}}',
  '=HYPERLINK("https://evil.example","x")',
  "+cmd|' /C calc'!A0",
  '-2+3',
  '@SUM(1)',
  '\t=1',
  '\r=1',
  '"',
  '""',
  '\\',
  '\\u0000',
  ',;\t|',
  '*',
  '%',
  '_',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '{3f2504e0-4f89-41d3-9a0c-0305e82c3301}',
  '3f2504e04f8941d39a0c0305e82c3301',
  '3F2504E0-4F89-41D3-9A0C-0305E82C3301',
  ' 3f2504e0-4f89-41d3-9a0c-0305e82c3301\n',
  '3f2504e0-4f89-41d3-9a0c-0305e82c330',
  '3f2504e0-4f89-41d3-9a0c-0305e82c3301-extra',
  'g3f2504e-4f89-41d3-9a0c-0305e82c3301',
  '2026-02-30',
  '2026-13-01',
  '0000-00-00',
  '9999-12-31',
  '2026-10-01T00:00:00Z',
  'x'.repeat(257),
  'y'.repeat(4_097),
  `${'ab'.repeat(5_000)}`,
];

/** Numbers that are not what a field expects: negative, fractional, past safe integers, NaN and the infinities. */
const HOSTILE_NUMBERS: readonly number[] = [
  -1,
  -0,
  0,
  0.5,
  -0.5,
  1e-320,
  2 ** 31,
  -(2 ** 31),
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e308,
  -1e308,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.EPSILON,
  NaN,
  Infinity,
  -Infinity,
  10_000_001,
  501,
  1e21,
];

const KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'then',
  'length',
  '',
  ' ',
  'id',
  'profileId',
  'reportId',
  'ok',
  'data',
  '0',
  '-1',
  '\u0000',
  'é',
  'a.b',
  '$ref',
];

/** Seeded generator of hostile values, huge strings and mutations of a valid input. */
export class Fuzz {
  readonly random: SeededRandom;

  constructor(seed: number) {
    this.random = new SeededRandom(seed);
  }

  int(min: number, max: number): number {
    return this.random.int(min, max);
  }

  pick<T>(items: readonly T[]): T {
    return this.random.pick(items);
  }

  chance(probability: number): boolean {
    return this.random.chance(probability);
  }

  /**
   * A string of 1–5 MB (or `bytes`), of a repeated unit that mixes ASCII, RTL, control and astral characters.
   * Strings are immutable, so the last few made are kept and handed out again (making one takes ~70 ms).
   */
  hugeString(bytes = this.int(1, 5) * 1024 * 1024): string {
    const unit = this.pick(['x', 'ab12', '\u202E\u05D0', '\u0000\u0001', '𝕮', '1234567890', '=A1,', '"\n', '{"a":[']);
    const key = `${unit}:${bytes}`;
    let text = this.huge.get(key);
    if (text === undefined) {
      text = unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
      if (this.huge.size >= 8) this.huge.delete(this.huge.keys().next().value as string);
      this.huge.set(key, text);
    }
    return text;
  }

  private readonly huge = new Map<string, string>();

  /** A short or medium string: hostile, random printable, random unicode, or a cut of a hostile one. */
  string(): string {
    switch (this.int(0, 4)) {
      case 0:
      case 1:
        return this.pick(HOSTILE_STRINGS);
      case 2:
        return Array.from({ length: this.int(0, 40) }, () => String.fromCharCode(this.int(32, 126))).join('');
      case 3:
        return Array.from({ length: this.int(1, 20) }, () =>
          String.fromCodePoint(
            this.pick([this.int(0, 0x2ff), this.int(0x590, 0x6ff), this.int(0x1f300, 0x1faff), this.int(0xd800, 0xdfff), this.int(0xe000, 0xffff)]),
          ),
        ).join('');
      default:
        return `${this.pick(HOSTILE_STRINGS)}${this.pick(HOSTILE_STRINGS)}`;
    }
  }

  number(): number {
    return this.chance(0.6) ? this.pick(HOSTILE_NUMBERS) : (this.next() - 0.5) * 10 ** this.int(0, 30);
  }

  private next(): number {
    return this.random.next();
  }

  /** Any JSON value (what the browser bridge can carry), `depth` levels deep at most. */
  json(depth = 3): unknown {
    const kind = this.int(0, depth > 0 ? 7 : 4);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.number();
      case 3:
      case 4:
        return this.string();
      case 5:
      case 6:
        return this.object(depth - 1);
      default:
        return Array.from({ length: this.int(0, 4) }, () => this.json(depth - 1));
    }
  }

  /** An object with hostile keys (a real own `__proto__` key among them, as JSON.parse makes it). */
  object(depth = 2): Record<string, unknown> {
    const object: Record<string, unknown> = {};
    for (let index = this.int(0, 4); index > 0; index--)
      Object.defineProperty(object, this.pick(KEYS), { value: this.json(depth), enumerable: true, configurable: true, writable: true });
    if (this.chance(0.2))
      return JSON.parse(`{"__proto__": {"polluted": true, "ok": true}, "constructor": {"prototype": {"polluted": true}}}`) as Record<string, unknown>;
    return object;
  }

  /**
   * Any value Electron's IPC (structured clone) or the bridge can hand over: JSON, plus BigInt, Date, Map, Set,
   * typed arrays, RegExp, Error, sparse arrays, objects without a prototype, cycles and a Symbol (what the bridge
   * passes for unreadable JSON).
   */
  value(depth = 3): unknown {
    switch (this.int(0, 15)) {
      case 0:
        return BigInt(this.int(-1000, 1000)) * 10n ** 30n;
      case 1:
        return new Date(this.pick([0, Number.NaN, 8.64e15, -8.64e15]));
      case 2:
        return new Map([[this.string(), this.json(1)]]);
      case 3:
        return new Set([this.json(1)]);
      case 4:
        return new Uint8Array(this.int(0, 64)).map(() => this.int(0, 255));
      case 5:
        return /.*/gi;
      case 6:
        return new Error(this.string());
      case 7: {
        const sparse: unknown[] = [];
        sparse[this.int(1, 5000)] = this.json(1);
        return sparse;
      }
      case 8:
        return Object.assign(Object.create(null) as object, { profileId: this.string() });
      case 9: {
        const cycle: Record<string, unknown> = { name: 'cycle' };
        cycle.self = cycle;
        cycle.profileId = cycle;
        return cycle;
      }
      case 10:
        return Symbol('unreadable');
      case 11:
        return undefined;
      case 12:
        return this.deep(this.int(100, 20_000));
      default:
        return this.json(depth);
    }
  }

  /** Flips `count` random bits of `bytes` in place (a bad disk, a bad copy); returns it. */
  flipBits(bytes: Uint8Array, count: number): Uint8Array {
    for (let flip = 0; flip < count && bytes.length; flip++) {
      const at = this.int(0, bytes.length - 1);
      bytes[at] = (bytes[at] as number) ^ (1 << this.int(0, 7));
    }
    return bytes;
  }

  /** Arrays or objects nested `levels` deep (built without recursion). */
  deep(levels: number): unknown {
    let value: unknown = this.pick(['leaf', 0, null]);
    const asArray = this.chance(0.5);
    for (let level = 0; level < levels; level++) value = asArray ? [value] : { a: value };
    return value;
  }

  /**
   * A deep copy of `valid` with one thing changed at a random place: the value replaced (wrong type, hostile text,
   * a huge string, a hostile number, deep nesting, another id from `ids`), the field removed, or a key added.
   */
  mutate(valid: unknown, ids: readonly string[] = []): { input: unknown; change: string } {
    const root = { value: structuredClone(valid) };
    const places: { parent: Record<string | number, unknown>; key: string | number; path: string }[] = [{ parent: root, key: 'value', path: '' }];
    const visit = (value: unknown, path: string) => {
      if (!value || typeof value !== 'object') return;
      const children: [string | number, unknown][] = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
      for (const [key, item] of children) {
        const at = typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`;
        places.push({ parent: value as Record<string | number, unknown>, key, path: at });
        visit(item, at);
      }
    };
    visit(root.value, '');
    const place = this.pick(places);
    const current = place.parent[place.key];
    const at = place.path || '(whole input)';
    const operation = this.int(0, 12);
    const set = (value: unknown, change: string) => {
      place.parent[place.key] = value;
      return { input: root.value, change: `${at}: ${change}` };
    };
    if (operation === 0 && place.path) {
      if (Array.isArray(place.parent)) place.parent.splice(Number(place.key), 1);
      else delete place.parent[place.key];
      return { input: root.value, change: `${at}: removed` };
    }
    if (operation === 1 && current && typeof current === 'object' && !Array.isArray(current)) {
      const key = this.pick(KEYS);
      Object.defineProperty(current, key, { value: this.json(2), enumerable: true, configurable: true, writable: true });
      return { input: root.value, change: `${at}: extra key ${JSON.stringify(key)}` };
    }
    if (operation === 2 && this.chance(0.25)) return set(this.hugeString(), 'a huge string');
    if (operation === 3 && ids.length) return set(this.pick(ids), 'another id');
    if (operation === 4) return set(this.number(), 'a hostile number');
    if (operation === 5 && typeof current === 'string') return set(`${current}${this.string()}`, 'text appended');
    if (operation === 6 && typeof current === 'string') return set(current.slice(0, this.int(0, current.length)), 'text cut');
    if (operation === 7) return set(this.deep(this.int(50, 5_000)), 'deep nesting');
    if (operation === 8 && typeof current === 'number') return set(String(current), 'number as text');
    if (operation === 9 && Array.isArray(current))
      return set(
        Array.from({ length: this.int(0, 3) }, () => structuredClone(current[0] ?? null)),
        'array resized',
      );
    if (operation === 10) return set(this.value(2), 'any value');
    if (operation === 11) return set(this.json(2), 'any JSON');
    return set(this.string(), 'hostile text');
  }
}

/**
 * Failures no caller saw: unhandled rejections and uncaught exceptions (watched without changing how the test
 * runner handles them), each a crash of the boundary under test.
 */
export function watchProcessFailures(): { failures: unknown[]; stop: () => void } {
  const failures: unknown[] = [];
  const record = (reason: unknown) => void failures.push(reason);
  process.on('unhandledRejection', record);
  process.on('uncaughtExceptionMonitor', record);
  return {
    failures,
    stop: () => {
      process.off('unhandledRejection', record);
      process.off('uncaughtExceptionMonitor', record);
    },
  };
}

/** One boundary's figures: how many inputs it tried and what went wrong. */
export interface FaultFigures {
  boundary: string;
  inputs: number;
  crashes: number;
  unclear: number;
  damaged: number;
  /** What the table should say besides the counts (what was not fuzzed and why, timings). */
  notes?: string[];
  /** A few failures, each with its input, for the report under the table. */
  examples?: string[];
}

/**
 * Keeps a boundary's figures in the run's folder (given by the suite's global setup), where the teardown finds
 * them all and prints one table. Written at once, so a later failing assertion still leaves the figures.
 */
export function saveFigures(folder: string, figures: FaultFigures): void {
  mkdirSync(folder, { recursive: true });
  const name = figures.boundary.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  writeFileSync(join(folder, `${name}.json`), JSON.stringify(figures));
}

/** Every boundary's figures saved in `folder`, in the order the suite lists them. */
export function readFigures(folder: string): FaultFigures[] {
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  const figures = names.map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as FaultFigures);
  return figures.sort((a, b) => a.boundary.localeCompare(b.boundary, 'en', { numeric: true }));
}

/** The figures as one plain-text table with the seed, its notes and its examples beneath. */
export function figuresTable(figures: FaultFigures[], seed = FUZZ_SEED): string {
  const header = ['Boundary', 'Inputs', 'Crashes', 'Unclear', 'Damaged'];
  const rows = figures.map((row) => [row.boundary, row.inputs.toLocaleString('en'), String(row.crashes), String(row.unclear), String(row.damaged)]);
  const total = figures.reduce(
    (sum, row) => ({
      inputs: sum.inputs + row.inputs,
      crashes: sum.crashes + row.crashes,
      unclear: sum.unclear + row.unclear,
      damaged: sum.damaged + row.damaged,
    }),
    { inputs: 0, crashes: 0, unclear: 0, damaged: 0 },
  );
  rows.push(['Total', total.inputs.toLocaleString('en'), String(total.crashes), String(total.unclear), String(total.damaged)]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] as number) : cell.padStart(widths[column] as number))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`;
  const out = [
    `Fault and fuzz figures (seed ${seed}; CLOSEBOOK_FUZZ_SEED=<n> to try another)`,
    line(header),
    rule,
    ...rows.slice(0, -1).map(line),
    line(rows.at(-1) as string[]),
  ];
  for (const row of figures) {
    for (const note of row.notes ?? []) out.push(`  ${row.boundary}: ${note}`);
    for (const example of row.examples ?? []) out.push(`  ${row.boundary} ✗ ${example}`);
  }
  return `${out.join('\n')}\n`;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder where each fault test saves its boundary's figures for the closing table. */
    faultFiguresDir: string;
  }
}
