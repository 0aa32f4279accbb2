/** Bulk consumption submission is the capability after reports. */
export function ConsumptionScreen(): React.JSX.Element {
  return (
    <section className="screen" aria-labelledby="consumption-title">
      <h1 id="consumption-title">Consumption</h1>
      <p className="empty">Submitting metered consumption is not available in this version yet.</p>
    </section>
  );
}
