/**
 * The bidirectional controls that change how a name is shown without being seen: `invoice\u202Excod.exe` displays as
 * `invoiceexe.docx`. Every name Closebook gives a file (a download, an upload kept by the browser bridge, a pack)
 * loses them, as it loses control characters and path characters.
 */
export const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
