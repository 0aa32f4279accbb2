import type { ReportJob } from './schemas/saved-report';
import { counted } from './counted';

/** A span of time as `42 s` or `3 min 05 s`; negative spans read as `0 s`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** Bytes as a person reads them: `512 KB`, `38 MB`, `1.2 GB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${Math.round(bytes / (1024 * 1024))} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

/**
 * What a report request is doing, in words and figures — never the service's raw status codes (their meaning is
 * "not shown" in the interface; an unknown one is explained in the job's message when it stops):
 * "Generating the report — checked 3 times, next check in 25 s", "Downloading 38 MB of 120 MB" (of N when the service said
 * the length), "Saving 412,000 billing lines — 41 %" (the share of the received file read; the line count is not known ahead).
 * Used by the app and the CLI alike, so both say the same.
 */
export function describeReportJob(job: ReportJob, now: number): string {
  const checked = job.polls === 0 ? 'not checked yet' : `checked ${counted(job.polls, 'time', 'times')}`;
  const next = job.nextPollAt ? `next check in ${formatDuration(Date.parse(job.nextPollAt) - now)}` : '';
  switch (job.state) {
    case 'waiting':
      return job.lastStatus === null
        ? `Requested — ${next ? `first check in ${formatDuration(Date.parse(job.nextPollAt as string) - now)}` : 'waiting for the first check'}`
        : `Generating the report — ${checked}${next ? `, ${next}` : ''}`;
    case 'polling':
      if (!job.transfer?.bytes) return `Checking with the service (check ${(job.polls + 1).toLocaleString('en')})`;
      return `Downloading ${formatBytes(job.transfer.bytes)}${job.transfer.totalBytes ? ` of ${formatBytes(job.transfer.totalBytes)}` : ''}`;
    case 'retrying':
      return `${job.busy ? 'The service is busy' : 'The service did not answer'} — retrying (${checked})`;
    case 'saving':
      if (!job.transfer?.lines) return 'Saving the report';
      return `Saving ${counted(job.transfer.lines, 'billing line', 'billing lines')}${job.transfer.percent === undefined ? '' : ` — ${job.transfer.percent} %`}`;
    case 'done':
      return 'Saved';
    case 'cancelled':
      return 'Cancelled';
    case 'failed':
      return `Stopped after ${counted(job.polls, 'check', 'checks')}`;
  }
}
