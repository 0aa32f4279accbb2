/** The header cells every money table ends with: a count of lines, then cost, sales, margin and margin %. */
export function AmountHeaderCells({ linesLabel }: { linesLabel: string }): React.JSX.Element {
  return (
    <>
      <th className="num">{linesLabel}</th>
      <th className="num">Cost</th>
      <th className="num">Sales</th>
      <th className="num">Margin</th>
      <th className="num">Margin %</th>
    </>
  );
}
