import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReportListing, ReportMeta } from '@shared/schemas/saved-report';
import { call, uploadFile } from '@renderer/bridge';
import { receiveFile } from '@renderer/bridge/files';
import { ErrorNote } from '@renderer/components/ErrorNote';
import { formatDateTime } from '@renderer/components/format-time';
import { useAction } from '@renderer/hooks/use-action';
import { useReportJobs } from './report-jobs-store';
import { groupByProfile } from './saved-report-groups';

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

  const refresh = useCallback(async () => setListings(await call('reports:list', {})), []);

  useEffect(() => {
    void run(refresh);
  }, [run, refresh, savedVersion]);

  const act = async (action: () => Promise<unknown>) => {
    setNotice(null);
    await run(async () => {
      await action();
      await refresh();
    });
  };

  /** With a file (browser bridge: uploaded first), or none (desktop: the main process opens its own dialog). */
  const importReport = (file?: File) => {
    void act(async () => {
      const upload = file && uploadFile ? await uploadFile(file) : undefined;
      const meta = await call('reports:import', upload ? { upload } : {});
      if (meta) setNotice(`Imported ${meta.name}.`);
    });
    if (fileInput.current) fileInput.current.value = '';
  };

  return (
    <section className="panel" aria-label="Saved reports">
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
      {listings && listings.length === 0 ? <p className="empty">No saved reports yet. Request one above; it is saved here and opens offline.</p> : null}
      {groupByProfile(listings ?? []).map((group) => (
        <section key={group.key} className="report-group" aria-label={`Reports of ${group.title}`}>
          <h3 className="report-group__title">{group.title}</h3>
          <ul className="report-list">
            {group.listings.map((listing) =>
              listing.state === 'damaged' ? (
                <li key={listing.id} className="report-item report-item--damaged" data-testid="saved-report">
                  <div className="report-item__name">Damaged report</div>
                  <div className="report-item__detail">{listing.reason}</div>
                  <div className="report-item__actions">
                    <button
                      type="button"
                      className="link danger"
                      onClick={() =>
                        void act(async () => {
                          await call('reports:delete', { reportId: listing.id });
                          onDeleted(listing.id);
                        })
                      }
                    >
                      Remove
                    </button>
                  </div>
                </li>
              ) : (
                <li key={listing.meta.id} className={`report-item${listing.meta.id === openId ? ' report-item--open' : ''}`} data-testid="saved-report">
                  {renaming?.id === listing.meta.id ? (
                    <form
                      onSubmit={(event) => {
                        event.preventDefault();
                        void act(async () => {
                          await call('reports:rename', { reportId: renaming.id, name: renaming.name });
                          setRenaming(null);
                        });
                      }}
                    >
                      <input
                        aria-label="Report name"
                        value={renaming.name}
                        autoFocus
                        onChange={(event) => setRenaming({ id: renaming.id, name: event.target.value })}
                      />
                      <button type="submit" className="link">
                        Save
                      </button>
                      <button type="button" className="link" onClick={() => setRenaming(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : (
                    <button type="button" className="report-item__name link" onClick={() => onOpen(listing.meta)}>
                      {listing.meta.name}
                    </button>
                  )}
                  <div className="report-item__detail">
                    {listing.meta.period.startDate} – {listing.meta.period.endDate} · {listing.meta.counts.lines.toLocaleString()} lines · fetched{' '}
                    {formatDateTime(listing.meta.fetchedAt)}
                    {listing.meta.importedFrom ? (
                      <>
                        {' · '}
                        <span className="report-item__imported" title="A copy read from a shared file, not fetched from the service">
                          imported from {listing.meta.importedFrom}
                        </span>
                      </>
                    ) : null}
                  </div>
                  <div className="report-item__actions">
                    <button type="button" className="link" onClick={() => onOpen(listing.meta)}>
                      Open
                    </button>
                    <button type="button" className="link" onClick={() => setRenaming({ id: listing.meta.id, name: listing.meta.name })}>
                      Rename
                    </button>
                    <button
                      type="button"
                      className="link"
                      onClick={() => void act(async () => setNotice(receiveFile(await call('reports:share', { reportId: listing.meta.id }))))}
                    >
                      Share file
                    </button>
                    {confirmDelete === listing.meta.id ? (
                      <>
                        <button
                          type="button"
                          className="link danger"
                          onClick={() =>
                            void act(async () => {
                              setConfirmDelete(null);
                              await call('reports:delete', { reportId: listing.meta.id });
                              onDeleted(listing.meta.id);
                            })
                          }
                        >
                          Delete for good
                        </button>
                        <button type="button" className="link" onClick={() => setConfirmDelete(null)}>
                          Keep
                        </button>
                      </>
                    ) : (
                      <button type="button" className="link danger" onClick={() => setConfirmDelete(listing.meta.id)}>
                        Delete
                      </button>
                    )}
                  </div>
                </li>
              ),
            )}
          </ul>
        </section>
      ))}
    </section>
  );
}
