/**
 * The webhook forms' fields read into what the webhooks service takes, from plain strings: the
 * mutual TLS pair of the register and edit forms, and the range of the recover form (a window
 * ending now, or a custom range typed in the browser's time zone). The service checks both as it
 * does for the API; this only turns what a browser sends into the API's shape.
 */
import { AppError } from '../../errors.js';

/**
 * The client certificate fields as the service takes them (`tls_client_certificate` and
 * `tls_client_key`): an empty field is not given, so one without the other is refused by the
 * service as over the API. Nothing given leaves the webhook's certificate as it is.
 */
export function clientCertificateOf(fields: { certificate?: string | undefined; key?: string | undefined }): {
  tls_client_certificate?: string;
  tls_client_key?: string;
} {
  const certificate = fields.certificate ?? '';
  const key = fields.key ?? '';
  return {
    ...(certificate.trim() === '' ? {} : { tls_client_certificate: certificate }),
    ...(key.trim() === '' ? {} : { tls_client_key: key }),
  };
}

/** On edit, Remove sends both as null (as `PATCH` does); Remove with a new pair pasted too is ambiguous, so refused. */
export function clientCertificateChangeOf(fields: {
  certificate?: string | undefined;
  key?: string | undefined;
  remove: boolean;
}) {
  const pasted = clientCertificateOf(fields);
  if (!fields.remove) return pasted;
  if (Object.keys(pasted).length > 0) {
    throw new AppError('parameter_invalid', 'Either paste a new certificate and key, or tick Remove: not both.', {
      param: 'tls_client_certificate',
    });
  }
  return { tls_client_certificate: null, tls_client_key: null };
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The recover form's windows, each ending now; those longer than the kept history are not offered. */
export const RECOVER_WINDOWS = [
  { value: '1h', label: 'the last hour', hours: 1 },
  { value: '6h', label: 'the last 6 hours', hours: 6 },
  { value: '24h', label: 'the last 24 hours', hours: 24 },
  { value: '3d', label: 'the last 3 days', hours: 72 },
  { value: '7d', label: 'the last 7 days', hours: 168 },
  { value: '30d', label: 'the last 30 days', hours: 720 },
] as const;
export const DEFAULT_RECOVER_WINDOW = '24h';
export const CUSTOM_RECOVER_WINDOW = 'custom';

export const recoverWindowsFor = (retentionDays: number) => RECOVER_WINDOWS.filter((w) => w.hours <= retentionDays * 24);

/**
 * The window as long as the history: its start would fall a moment before the retention check's
 * own "now" (taken later), and be refused. It starts this much later instead; messages that old
 * are due for the hourly purge anyway.
 */
const RETENTION_EDGE_MS = 60_000;

/** UTC+14 to UTC−12 are the offsets in use; a browser sends minutes east of UTC. */
const MAX_OFFSET_MINUTES = 14 * 60;
/** A `datetime-local` field: `2026-11-20T08:00`, seconds optional. */
const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

export interface RecoverFields {
  window?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  /** Minutes east of UTC of the browser at each field's date and time (its script fills them in); empty: UTC. */
  sinceOffset?: string | undefined;
  untilOffset?: string | undefined;
}

export interface RecoverFieldError {
  field: 'window' | 'since' | 'until';
  message: string;
}

export type RecoverRangeResult = { since: string; until: string } | { error: RecoverFieldError };

/** A datetime-local value at `offset` (minutes east of UTC) as an ISO UTC time; undefined when empty, null when not a time. */
function utcOf(value: string | undefined, offset: string | undefined): string | undefined | null {
  const local = value?.trim() ?? '';
  if (local === '') return undefined;
  const minutes = offset === undefined || offset.trim() === '' ? 0 : Number(offset);
  if (!DATETIME_LOCAL.test(local) || !Number.isInteger(minutes) || Math.abs(minutes) > MAX_OFFSET_MINUTES) return null;
  const at = Date.parse(`${local.length === 16 ? `${local}:00` : local}Z`);
  return Number.isNaN(at) ? null : new Date(at - minutes * 60_000).toISOString();
}

/**
 * The range the form asks for, ending now for a window. A form without a window field (sent
 * before the windows existed) is a custom range.
 */
export function recoverRangeOf(fields: RecoverFields, context: { now: Date; retentionDays: number }): RecoverRangeResult {
  const now = context.now.getTime();
  const choice = fields.window ?? CUSTOM_RECOVER_WINDOW;
  if (choice !== CUSTOM_RECOVER_WINDOW) {
    const window = recoverWindowsFor(context.retentionDays).find((w) => w.value === choice);
    if (!window) return { error: { field: 'window', message: 'Choose one of the time windows, or a custom range.' } };
    const oldest = now - context.retentionDays * DAY_MS + RETENTION_EDGE_MS;
    return { since: new Date(Math.max(now - window.hours * HOUR_MS, oldest)).toISOString(), until: context.now.toISOString() };
  }
  const since = utcOf(fields.since, fields.sinceOffset);
  const until = utcOf(fields.until, fields.untilOffset);
  if (since === undefined) return { error: { field: 'since', message: 'Choose the start of the range.' } };
  if (since === null) return { error: { field: 'since', message: 'Enter the start as a date and time.' } };
  if (until === null)
    return { error: { field: 'until', message: 'Enter the end as a date and time, or leave it empty for now.' } };
  return { since, until: until ?? context.now.toISOString() };
}

/** Why the service refused a range, in the form's words (the service said it in the API's). */
export function recoverRefusalOf(
  range: { since: string; until: string },
  context: { now: Date; retentionDays: number },
): RecoverFieldError {
  const kept = new Date(context.now.getTime() - context.retentionDays * DAY_MS);
  if (Date.parse(range.since) < kept.getTime()) {
    return {
      field: 'since',
      message: `Messages are kept for ${context.retentionDays} days: choose a start after ${utcText(kept.toISOString())}.`,
    };
  }
  return { field: 'until', message: 'The end must be after the start (and the start before now).' };
}

/** `2026-11-20 08:00:00 UTC`: how the recover form's results state a time. */
export const utcText = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
