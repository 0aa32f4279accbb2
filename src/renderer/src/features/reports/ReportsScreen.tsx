/** Month-end billing reports (requested, polled, viewed and exported) are the next capability to land here. */
export function ReportsScreen(): React.JSX.Element {
  return (
    <section className="screen" aria-labelledby="reports-title">
      <h1 id="reports-title">Reports</h1>
      <p className="empty">Requesting and reading monthly billing reports is not available in this version yet.</p>
    </section>
  );
}
