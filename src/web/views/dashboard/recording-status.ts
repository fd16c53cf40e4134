/**
 * A person's recording status as the dashboard shows it, in one place: the table, the person
 * page, review mode and the in-place updates of `review.ts` (client), which receive the same label.
 */
import { html, type SafeHtml } from '../../html.js';

export type RecordingStatus = 'none' | 'recorded' | 'approved' | 'needs_rerecord';

/** The longest review note (the API's limit). */
export const MAX_REVIEW_NOTE = 500;

/** The badge's words and tone (`ok`, `wait`, `off`); with review on, a recording not yet reviewed awaits review. */
export function statusLabel(status: RecordingStatus, reviewRequired: boolean): { text: string; tone: 'ok' | 'wait' | 'off' } {
  switch (status) {
    case 'none':
      return { text: 'Not recorded', tone: 'wait' };
    case 'recorded':
      return reviewRequired ? { text: 'Awaiting review', tone: 'wait' } : { text: 'Recorded', tone: 'ok' };
    case 'approved':
      return { text: 'Approved', tone: 'ok' };
    case 'needs_rerecord':
      return { text: 'Needs re-record', tone: 'off' };
  }
}

/** A person's recording status as a badge. */
export function statusBadge(status: RecordingStatus, reviewRequired: boolean): SafeHtml {
  const { text, tone } = statusLabel(status, reviewRequired);
  return html`<span class="badge ${tone}">${text}</span>`;
}
