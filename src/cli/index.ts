import { EXIT } from './exit-codes';

const USAGE = `Closebook command line (the same core as the app)

  simulator [--port N] [--organizations N] [--seed N] [--no-planted-changes]
                                                          run the service twin; prints its base URL
  profiles list [--json] | add … [--secrets-from-env [--env-prefix P]] | remove NAME
                                                          manage connection profiles (secrets in the keychain or the environment)
  orgs list [--json] | create --file org.json            organizations of the Broker
  report fetch --from YYYY-MM-DD --to YYYY-MM-DD [--out FILE.xlsx] [--poll-interval SECONDS]
                                                          request a billing report, wait for it, save it (id on stdout)
  report resume                                           carry on with unfinished report requests
  reports list [--json] | export ID --out FILE.xlsx|.parquet|.csv [--group NAME] | delete ID | import FILE
                                                          saved reports (offline)
  reports export ID --per-group --out-dir DIR             one workbook per organization group (offline)
  reports compare [A] B [--json] [--out FILE.xlsx]        month B against month A (default: the month before B):
                                                          the sales bridge per currency and every change (offline)
  reports check ID [--json] [--fail-on high|medium|low]   the month's billing checks; exit 4 while any at or above
                                                          --fail-on (default low) is open (offline)
  reports accept ID EXCEPTION-ID… --note TEXT [--resolve] accept (or mark resolved) exceptions; prints how many stay open
  reports prepare ID | approve ID                         the four-eyes sign-off: prepare when nothing is open; approve
                                                          as a second person (refused for the preparer: exit 5)
  reports reopen ID --reason TEXT                         back to Draft, with the reason in the log
  reports log ID [--json]                                 the month's close log, its hash chain checked (exit 5 if broken)
  reports evidence ID --out FILE.pdf                      the month's evidence pack for an auditor (one PDF)
  reports checklist ID [--json]                           the month's close steps: due business day, who and when, overdue
  reports calendar [--holidays D,D…] [--due STEP=N]…      the close calendar (the team's with a team ledger)
  ledger backup --out FILE.duckdb                         a consistent copy of every saved month (the ledger)
  team connect postgresql://ROLE@HOST/DATABASE           connect the team ledger (password from CLOSEBOOK_TEAM_PASSWORD,
                                                          then kept in the keychain): the close then goes through it
  team status [--url URL] | disconnect                    who you are there, your roles, the server and its schema
  team months [--json] | share ID | pull [--period YYYY-MM]
                                                          months on the team ledger; share a fetch; bring them here
  team move-in [--json]                                   move this workstation's months and reviews in (signs nothing)
  invoices map [--report ID] --import F.csv | --export F.csv
                                                          the mapping of customers and items to the accounting system
  invoices map --history [KEY] [--json]                   every change of it (of one entry), by whom and when (team)
  invoices settings [--prefix P] [--next N] [--date-format F] [--lines-per subscription|product] [--split-by-po yes|no]
                                                          invoice numbering, dates, and what an invoice line is
  invoices run ID [--invoice-date D] [--json]             the month's invoices as they would be made now (unmapped
                                                          first); exit 5 while it cannot be exported
  invoices export ID --format xero|qbo|ubl|template --out DIR [--invoice-date D]
                                                          number the month's invoices once and write the import files;
                                                          a second export writes the same files (exit 5: not ready)
  invoices template --import F.json | --export F.json | --remove
                                                          your own import file's columns (--format template)
  invoices adjust | exclude | withdraw | approve-adjustments ID …
                                                          a manual line, a line left out, one taken back (with a reason),
                                                          approved by a second person (invoices help for each)
  consumption validate --file F [--sheet NAME]            check a CSV/XLSX consumption file; problems by row
  consumption submit --file F [--period YYYY-MM] [--failed-out F.xlsx|.csv] [--poll-interval S] [--yes]
                                                          submit usage for a month (default last month), watch the
                                                          task; exit 3 when the service rejects it
  consumption status TASKID | history [--json]            a task's state; past submissions (offline)

Service commands take --profile NAME, or --base-url URL --client-id ID --username NAME --reseller-id GUID
[--seller-id GUID] with CLOSEBOOK_API_SECRET and CLOSEBOOK_PASSWORD in the environment; and --data-dir DIR.
Exit codes: 0 done, 1 usage or validation error, 2 authentication, network or service error, or output that
could not be written, 3 the consumption task Failed, 4 billing exceptions still open (reports check), 5 a control of the month close
refused the step (an approval by the preparer, a locked month, a signed fetch deleted, a broken log).
`;

type Command = (args: string[]) => Promise<number>;

/**
 * Each command's code is loaded when that command runs: `help` and a mistyped name load no core, database,
 * workbook or keychain code, and return in the time Node takes to start.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  simulator: async () => (await import('./commands')).simulatorCommand,
  profiles: async () => (await import('./commands')).profilesCommand,
  orgs: async () => (await import('./commands')).organizationsCommand,
  report: async () => (await import('./report-commands')).reportCommand,
  reports: async () => {
    const [close, reports] = await Promise.all([import('./close-commands'), import('./report-commands')]);
    return (args) => (close.isCloseAction(args[0]) ? close.closeCommand(args) : reports.reportsCommand(args));
  },
  consumption: async () => (await import('./consumption-commands')).consumptionCommand,
  ledger: async () => (await import('./report-commands')).ledgerCommand,
  team: async () => (await import('./team-commands')).teamCommand,
  invoices: async () => (await import('./invoice-commands')).invoicesCommand,
};

/** Runs one command and returns its exit code; every failure is one line on stderr. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help') {
    process.stdout.write(USAGE);
    return name ? EXIT.ok : EXIT.usage;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`closebook: unknown command "${name}". Run: npm run cli -- help\n`);
    return EXIT.usage;
  }
  try {
    return await (
      await load()
    )(args);
  } catch (error) {
    return (await import('./exit')).fail(error);
  }
}
