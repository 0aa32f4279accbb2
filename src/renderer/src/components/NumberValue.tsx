import type { NumberText } from './format-number';

/**
 * A number with its decimal point in line with the column's (the pad is drawn by CSS, so it is never part of the
 * text a reader, a copy or a test takes), and the exact value as tooltip when rounded. One for every table.
 */
export function NumberValue({ value }: { value: NumberText }): React.JSX.Element {
  return (
    <span className="n" data-pad={value.pad || undefined} title={value.title}>
      {value.text}
    </span>
  );
}
