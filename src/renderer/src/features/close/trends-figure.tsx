import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, type TooltipContentProps, XAxis, YAxis } from 'recharts';
import type { TrendMonth, TrendSeries } from '@shared/schemas/month-close';
import { AmountHeaderCells } from '@renderer/components/AmountHeaderCells';
import { amountText, countOf, formatAmount, formatCount, percentText } from '@renderer/components/format-number';
import { NumberValue } from '@renderer/components/NumberValue';
import { monthLabel } from './month-label';
import { axisTick, type ChartRow, chartRows, seriesTitle } from './trends-chart';

/** Lines told apart by dash as well as colour, so a black-and-white printout and colour-blind readers can too. */
const LINES = {
  sales: { name: 'Sales', className: 'trend-line trend-line--sales', stroke: '#1f5fbf', dash: undefined },
  cost: { name: 'Cost', className: 'trend-line trend-line--cost', stroke: '#b45309', dash: '6 4' },
  margin: { name: 'Margin', className: 'trend-line trend-line--margin', stroke: '#1e7b34', dash: '2 3' },
} as const;

const CHART_HEIGHT = 240;

/** The hovered month's exact figures, in the app's number style. */
function ExactTooltip({ active, payload, series }: TooltipContentProps & { series: TrendSeries }): React.JSX.Element | null {
  const row = payload?.[0]?.payload as ChartRow | undefined;
  if (!active || !row) return null;
  const { point } = row;
  return (
    <div className="trend-tooltip">
      <strong>{row.month}</strong>
      <div>
        Sales {formatAmount(point.sales, series.salesCurrency)} {series.salesCurrency}
      </div>
      <div>
        Cost {formatAmount(point.cost, series.costCurrency)} {series.costCurrency}
      </div>
      {point.margin !== null ? (
        <div>
          Margin {formatAmount(point.margin, series.salesCurrency)} {series.salesCurrency}
          {point.marginPercent !== null ? ` (${percentText(point.marginPercent).text})` : ''}
        </div>
      ) : null}
      <div className="muted">{countOf(point.lines, 'line')}</div>
    </div>
  );
}

/** Sales, cost and margin of one currency pair over the months: in one currency one axis; two currencies, an axis each. */
function TrendChart({ months, series, currentIndex }: { months: readonly TrendMonth[]; series: TrendSeries; currentIndex: number }): React.JSX.Element {
  const rows = chartRows(months, series);
  const twoCurrencies = series.costCurrency !== series.salesCurrency;
  const current = rows[currentIndex]?.month;
  const line = (key: keyof typeof LINES, axis: string) => (
    <Line
      type="linear"
      dataKey={key}
      yAxisId={axis}
      name={twoCurrencies ? `${LINES[key].name} (${key === 'cost' ? series.costCurrency : series.salesCurrency})` : LINES[key].name}
      className={LINES[key].className}
      stroke={LINES[key].stroke}
      strokeDasharray={LINES[key].dash}
      strokeWidth={2}
      dot={{ r: 3 }}
      isAnimationActive={false}
      connectNulls={false}
    />
  );
  return (
    <div
      className="trend-chart"
      role="img"
      aria-label={`Chart of sales, cost${twoCurrencies ? '' : ' and margin'} per month, ${seriesTitle(series)}; the table below has the figures.`}
    >
      <ResponsiveContainer width="100%" height={CHART_HEIGHT} initialDimension={{ width: 720, height: CHART_HEIGHT }}>
        <LineChart data={rows} accessibilityLayer={false} margin={{ top: 20, right: twoCurrencies ? 8 : 24, bottom: 0, left: 8 }}>
          <CartesianGrid className="trend-grid" strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="month" tickLine={false} padding={{ left: 24, right: 24 }} />
          <YAxis
            yAxisId="sales"
            tickFormatter={(value: number) => axisTick(value)}
            width={56}
            label={twoCurrencies ? { value: series.salesCurrency, angle: -90, position: 'insideLeft' } : undefined}
          />
          {twoCurrencies ? (
            <YAxis
              yAxisId="cost"
              orientation="right"
              tickFormatter={(value: number) => axisTick(value)}
              width={56}
              label={{ value: series.costCurrency, angle: 90, position: 'insideRight' }}
            />
          ) : null}
          {current ? (
            <ReferenceLine
              x={current}
              yAxisId="sales"
              className="trend-current"
              stroke="#5d6677"
              strokeDasharray="1 3"
              label={{ value: 'This month', position: 'top' }}
            />
          ) : null}
          <Tooltip content={(props: TooltipContentProps) => <ExactTooltip {...props} series={series} />} isAnimationActive={false} />
          <Legend itemSorter={null} />
          {line('sales', 'sales')}
          {line('cost', twoCurrencies ? 'cost' : 'sales')}
          {twoCurrencies ? null : line('margin', 'sales')}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

/** The same figures as the chart, exact: the accessible and printable form. */
function TrendTable({ months, series, currentIndex }: { months: readonly TrendMonth[]; series: TrendSeries; currentIndex: number }): React.JSX.Element {
  return (
    <table className="grid trend-table" aria-label={`Sales, cost and margin per month, ${seriesTitle(series)}`}>
      <thead>
        <tr>
          <th>Month</th>
          <AmountHeaderCells linesLabel="Lines" />
        </tr>
      </thead>
      <tbody>
        {series.points.map((point, index) => {
          const month = months[index] as TrendMonth;
          return (
            <tr
              key={month.reportId}
              className={index === currentIndex ? 'trend-table__current' : undefined}
              aria-current={index === currentIndex ? 'date' : undefined}
            >
              <td>
                {monthLabel(month.period)}
                {index === currentIndex ? <span className="tag">this month</span> : null}
              </td>
              <td className="num">{formatCount(point.lines)}</td>
              <td className="num">
                <NumberValue value={amountText(point.cost, series.costCurrency)} />
              </td>
              <td className="num">
                <NumberValue value={amountText(point.sales, series.salesCurrency)} />
              </td>
              <td className="num">
                {point.margin === null ? (
                  <span className="muted" title="Cost and sales are in different currencies">
                    n/a
                  </span>
                ) : (
                  <NumberValue value={amountText(point.margin, series.salesCurrency)} />
                )}
              </td>
              <td className="num">{point.marginPercent === null ? '' : <NumberValue value={percentText(point.marginPercent)} />}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** One currency pair: its chart and, under it, its table. */
export function TrendFigure({ months, series, currentIndex }: { months: readonly TrendMonth[]; series: TrendSeries; currentIndex: number }): React.JSX.Element {
  const twoCurrencies = series.costCurrency !== series.salesCurrency;
  return (
    <figure className="trend" data-testid="trend-figure" data-currency={series.currencyKey}>
      <figcaption>
        <strong>{series.currencyKey}</strong>
        {twoCurrencies ? <span className="muted"> — {seriesTitle(series)}: no margin without converting (see Reference currency)</span> : null}
      </figcaption>
      <TrendChart months={months} series={series} currentIndex={currentIndex} />
      <TrendTable months={months} series={series} currentIndex={currentIndex} />
    </figure>
  );
}
