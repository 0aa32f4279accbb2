import { SaxesParser } from 'saxes';
import { quoted } from '@shared/typed-number';
import { OversizedWorkbook, sizeText, UnreadableWorkbook, type XlsxBounds } from './xlsx-bounds';
import type { Zip } from './xlsx-zip';

/**
 * The bounded XML reader of the workbook reader: one part's XML, unpacked from the zip as a stream, read element by
 * element, within the bounds on its size, nesting and text. The parts that read sheets and lists of parts
 * (xlsx-reader.ts) say only what they do with each element.
 */

export interface Visitor {
  open(name: string, attributes: Record<string, string>): void;
  close?(name: string): void;
  text?(text: string): void;
  /** Set when the rest of the part is not needed: it is still unpacked, to check that the part is whole. */
  done?: boolean;
  /** Set when the reading ends here (the caller refuses the file). */
  stop?: boolean;
}

/** Element names without their namespace prefix (some writers spell every element <x:row>). */
function local(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** A part as the user knows it ("The sheet …"), its cap in bytes unpacked, and what to do when it is past it. */
export interface PartLimit {
  what: string;
  cap: number;
  advice: string;
}

/**
 * Reads a part's XML as a stream, element by element, with `visitor`. Refuses the part past its cap, past the bounds
 * on nesting and on the bytes between two tags (the XML parser holds a text or a tag whole, however long), and when
 * it declares a document type (entities that expand, which Excel never writes).
 */
export async function parseXml(zip: Zip, path: string, bounds: XlsxBounds, limit: PartLimit, visitor: Visitor): Promise<void> {
  const parser = new SaxesParser({ position: false });
  let depth = 0;
  parser.on('opentag', (tag) => {
    if (++depth > bounds.depth) throw new UnreadableWorkbook(`its part ${quoted(path)} is nested more than ${bounds.depth} levels deep`);
    if (++zip.elements > bounds.elements) {
      throw new OversizedWorkbook(
        `${limit.what} is larger than a consumption file can be (more than ${bounds.elements.toLocaleString('en')} cells, rows and other pieces read). ${limit.advice}`,
      );
    }
    if (!visitor.done && !visitor.stop) visitor.open(local(tag.name), tag.attributes as Record<string, string>);
  });
  parser.on('closetag', (tag) => {
    depth--;
    if (!visitor.done && !visitor.stop) visitor.close?.(local(tag.name));
  });
  const { text } = visitor;
  if (text) {
    const onText = (value: string) => void (visitor.done || visitor.stop || text.call(visitor, value));
    parser.on('text', onText);
    parser.on('cdata', onText);
  }
  parser.on('doctype', () => {
    throw new UnreadableWorkbook(`its part ${quoted(path)} declares a document type, which Excel never writes`);
  });
  const decoder = new TextDecoder();
  let read = 0;
  let lastTag = 0;
  try {
    const tooLarge = `${limit.what} is larger than a consumption file can be (more than ${sizeText(limit.cap)} unpacked). ${limit.advice}`;
    for await (const chunk of zip.unpack(path, limit.cap, tooLarge)) {
      if (visitor.done) continue;
      // A '<' at least every `betweenTags` bytes: found by jumping that far and looking back, a call or two a chunk.
      const end = read + chunk.length;
      while (lastTag + bounds.betweenTags < end) {
        const at = chunk.lastIndexOf(0x3c, lastTag + bounds.betweenTags - read);
        if (at < 0 || read + at <= lastTag) {
          throw new OversizedWorkbook(
            `${limit.what} holds more than ${sizeText(bounds.betweenTags)} of text in one piece, more than any cell can hold (32,767 characters). Save it again from Excel, or export it as CSV.`,
          );
        }
        lastTag = read + at;
      }
      const last = chunk.lastIndexOf(0x3c);
      if (last >= 0) lastTag = read + last;
      read = end;
      parser.write(decoder.decode(chunk, { stream: true }));
      if (visitor.stop) return;
    }
    if (visitor.done) return;
    parser.write(decoder.decode());
    parser.close();
  } catch (error) {
    if (error instanceof UnreadableWorkbook || error instanceof OversizedWorkbook) throw error;
    throw new UnreadableWorkbook(
      `its part ${quoted(path)} is not well-formed XML (${String((error as Error).message)
        .slice(0, 80)
        .replace(/\.$/, '')})`,
    );
  }
}
