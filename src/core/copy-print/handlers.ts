import type { ServiceHandlers } from '@shared/contract';
import { AppError } from '@shared/errors';
import { deliverBytes } from '../storage/files';
import type { Ports } from '../ports/ports';
import { copiedTable } from './table-text';

type CopyPrintHandlers = Pick<ServiceHandlers, 'clipboard:copy-table' | 'view:print-pdf'>;

/** Copying a table to the clipboard and printing the window to PDF: what the host offers, or what the page must do itself. */
export function createCopyPrint(ports: Ports): { handlers: CopyPrintHandlers } {
  return {
    handlers: {
      'clipboard:copy-table': async ({ rows }) => {
        const table = copiedTable(rows);
        if (!ports.writeClipboard) return { copied: false, ...table }; // the page puts it on the clipboard itself
        await ports.writeClipboard(table);
        return { copied: true };
      },
      'view:print-pdf': async ({ fileName }) => {
        if (!ports.printToPdf) {
          throw new AppError('internal', "This window cannot print to PDF itself. Use the browser's Print (Ctrl+P or ⌘P) and choose Save as PDF.");
        }
        // Printed before the save dialog opens, so the PDF is the view the user asked to print.
        const pdf = await ports.printToPdf();
        return deliverBytes(ports, /\.pdf$/i.test(fileName) ? fileName : `${fileName}.pdf`, 'pdf', pdf);
      },
    },
  };
}
