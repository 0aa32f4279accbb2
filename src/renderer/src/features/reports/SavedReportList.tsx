import { Fragment, useCallback, useEffect, useRef, useState } from 'react';
import type { CloseState, FetchState } from '@shared/schemas/month-close';
import type { ReportListing, ReportMeta } from '@shared/schemas/saved-report';
import { call, uploadFile } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { escapeTo } from '@renderer/components/escape-to';
import { KeepButton } from '@renderer/components/KeepButton';
import { formatDateTime } from '@renderer/components/format-time';
import { useAction } from '@renderer/hooks/use-action';
import { useRowFocus } from '@renderer/hooks/keyboard-focus';
import { useReportJobs } from './report-jobs-store';
import { fetchesByMonth, groupByProfile } from './saved-report-groups';
import { endedBefore, fetchedBeforeEndText } from '@shared/model/period-end';
import { countOf } from '@renderer/components/format-number';

const STATE_NAMES: Record<CloseState, string> = { draft: 'Draft', prepared: 'Prepared', approved: 'Approved' };

const toggled = (set: ReadonlySet<string>, key: string) => {
  const next = new Set(set);
  if (!next.delete(key)) next.add(key);
  return next;
};

interface Props {
  openId: string | null;
  onOpen: (report: ReportMeta) => void;
  onDeleted: (reportId: string) => void;
}

/** Saved reports, readable with no network: open, rename, delete, share as a file, import a colleague's. */
export function SavedReportList({ openId, onOpen, onDeleted }: Props): React.JSX.Element {
  const savedVersion = useReportJobs((state) => state.savedVersion);
  const [listings, setListings] = useState<ReportListing[] | null>(null);
  const { run, error: failure } = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [confirmDelete, setConfirmDelete] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const [states, setStates] = useState<Map<string, FetchState>>(new Map());
  /** The months whose earlier fetches are unfolded (by their newest fetch); the one holding the open report always is. */
  const [unfolded, setUnfolded] = useState<ReadonlySet<string>>(new Set());

  const refresh = useCallback(async () => {
    // The close states are a help to tell fetches apart: the list stands without them (a team ledger out of reach).
    const [listed, fetches] = await Promise.all([call('reports:list', {}), call('close:fetch-states', {}).catch(() => [])]);
    setListings(listed);
    setStates(new Map(fetches.map((fetch) => [fetch.reportId, fetch])));
  }, []);

  useEffect(() => {
    void run(refresh);
  }, [run, refresh, savedVersion]);

  /** Runs `action` and reads the list again; true when it was done. */
  const act = async (action: () => Promise<unknown>) => {
    setNotice(null);
    return Boolean(
      await run(async () => {
        await action();
        await refresh();
        return true;
      }),
    );
  };

  // The keyboard through renaming and deleting: each step replaces the control that took it. Asked to delete, it is
  // on Keep (the safe answer); kept or renamed, back on the control that started it; deleted, on the next report.
  const list = useRef<HTMLElement>(null);
  const emptyNote = useRef<HTMLParagraphElement>(null);
  const { handOn, focusOn } = useRowFocus(
    list,
    useCallback(() => emptyNote.current, []),
  );

  /** With a file (browser bridge: uploaded first), or none (desktop: the main process opens its own dialog). */
  const importReport = (file?: File) => {
    void act(async () => {
      const upload = file && uploadFile ? await uploadFile(file) : undefined;
      const meta = await call('reports:import', upload ? { upload } : {});
      if (meta) setNotice(`Imported ${meta.name}.`);
    });
    if (fileInput.current) fileInput.current.value = '';
  };

  /** One saved fetch: its name, period, lines, fetch time to the second and its state in the month's close. */
  const item = (meta: ReportMeta) => {
    const fetch = states.get(meta.id);
    const cancelRename = () => {
      setRenaming(null);
      focusOn(meta.id, 'name');
    };
    return (
      <li key={meta.id} className={`report-item${meta.id === openId ? ' report-item--open' : ''}`} data-testid="saved-report" data-focus-row={meta.id}>
        {renaming?.id === meta.id ? (
          <form
            onSubmit={(event) => {
              event.preventDefault();
              void act(async () => {
                await call('reports:rename', { reportId: renaming.id, name: renaming.name });
                setRenaming(null);
                focusOn(meta.id, 'name');
              });
            }}
          >
            <input
              aria-label="Report name"
              value={renaming.name}
              autoFocus
              onChange={(event) => setRenaming({ id: renaming.id, name: event.target.value })}
              onKeyDown={escapeTo(cancelRename)}
            />
            <button type="submit" className="link">
              Save
            </button>
            <button type="button" className="link" onClick={cancelRename}>
              Cancel
            </button>
          </form>
        ) : (
          <button type="button" className="report-item__name link" onClick={() => onOpen(meta)} data-control="name">
            {meta.name}
          </button>
        )}
        <div className="report-item__detail">
          {fetch ? (
            <>
              <span className={`state-badge state-badge--${fetch.state}`} data-testid="fetch-state">
                {STATE_NAMES[fetch.state]}
              </span>
              {fetch.superseded ? (
                <span className="state-badge state-badge--superseded" title="A newer fetch of this month is in the ledger; the close counts the newest one">
                  Superseded
                </span>
              ) : null}{' '}
            </>
          ) : null}
          {endedBefore(meta.period.endDate, meta.fetchedAt) ? null : (
            <>
              <span className="state-badge state-badge--partial" title={`${fetchedBeforeEndText(meta.period.endDate, meta.fetchedAt)}.`}>
                Partial
              </span>{' '}
            </>
          )}
          {meta.period.startDate} – {meta.period.endDate} · {meta.counts.lines.toLocaleString()} lines · fetched{' '}
          <time dateTime={meta.fetchedAt}>{formatDateTime(meta.fetchedAt, { seconds: true })}</time>
          {meta.importedFrom ? (
            <>
              {' · '}
              <span className="report-item__imported" title="A copy read from a shared file, not fetched from the service">
                imported from {meta.importedFrom}
              </span>
            </>
          ) : null}
        </div>
        <div className="report-item__actions">
          <button type="button" className="link" onClick={() => onOpen(meta)}>
            Open
          </button>
          <button type="button" className="link" onClick={() => setRenaming({ id: meta.id, name: meta.name })}>
            Rename
          </button>
          <button
            type="button"
            className="link"
            onClick={() => void act(async () => setNotice(receiveFile(await call('reports:share', { reportId: meta.id }))))}
          >
            Share file
          </button>
          {confirmDelete === meta.id ? (
            <>
              <button
                type="button"
                className="link danger"
                onClick={() =>
                  void handOn(meta.id, () =>
                    act(async () => {
                      setConfirmDelete(null);
                      await call('reports:delete', { reportId: meta.id });
                      onDeleted(meta.id);
                    }),
                  )
                }
              >
                Delete for good
              </button>
              <KeepButton
                onKeep={() => {
                  setConfirmDelete(null);
                  focusOn(meta.id, 'delete');
                }}
              />
            </>
          ) : (
            <button type="button" className="link danger" onClick={() => setConfirmDelete(meta.id)} data-control="delete">
              Delete
            </button>
          )}
        </div>
      </li>
    );
  };

  return (
    <section className="panel" aria-label="Saved reports" ref={list}>
      <div className="panel__header">
        <h2>Saved reports</h2>
        <button type="button" className="link" onClick={() => (uploadFile ? fileInput.current?.click() : importReport())}>
          Import…
        </button>
        <input
          ref={fileInput}
          type="file"
          accept=".json,.gz,application/json,application/gzip"
          hidden
          aria-label="Import report file"
          onChange={(event) => event.target.files?.[0] && importReport(event.target.files[0])}
        />
      </div>
      <ErrorNote message={failure} />
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {listings && listings.length === 0 ? (
        <p className="empty" ref={emptyNote} tabIndex={-1}>
          No saved reports yet. Request one above; it is saved here and opens offline.
        </p>
      ) : null}
      {groupByProfile(listings ?? []).map((group) => (
        <section key={group.key} className="report-group" aria-label={`Reports of ${group.title}`}>
          <h3 className="report-group__title">{group.title}</h3>
          <ul className="report-list">
            {group.listings
              .filter((listing) => listing.state === 'damaged')
              .map((listing) => (
                <li key={listing.id} className="report-item report-item--damaged" data-testid="saved-report" data-focus-row={listing.id}>
                  <div className="report-item__name">Damaged report</div>
                  <div className="report-item__detail">{listing.reason}</div>
                  <div className="report-item__actions">
                    <button
                      type="button"
                      className="link danger"
                      onClick={() =>
                        void handOn(listing.id, () =>
                          act(async () => {
                            await call('reports:delete', { reportId: listing.id });
                            onDeleted(listing.id);
                          }),
                        )
                      }
                    >
                      Remove
                    </button>
                  </div>
                </li>
              ))}
            {fetchesByMonth(group.listings).map(([newest, ...earlier]) => {
              const holdsOpen = earlier.some((meta) => meta.id === openId);
              return (
                <Fragment key={newest.id}>
                  {item(newest)}
                  {earlier.length ? (
                    <li className="report-item__earlier">
                      <details
                        open={unfolded.has(newest.id) || holdsOpen}
                        onToggle={(event) => {
                          if (holdsOpen) return; // opened for the open report, not by the user
                          const open = event.currentTarget.open;
                          setUnfolded((shown) => (open === shown.has(newest.id) ? shown : toggled(shown, newest.id)));
                        }}
                      >
                        <summary>
                          {countOf(earlier.length, 'earlier fetch', 'earlier fetches')} of {newest.period.startDate} – {newest.period.endDate}
                        </summary>
                        <ul className="report-list">{earlier.map(item)}</ul>
                      </details>
                    </li>
                  ) : null}
                </Fragment>
              );
            })}
          </ul>
        </section>
      ))}
    </section>
  );
}
