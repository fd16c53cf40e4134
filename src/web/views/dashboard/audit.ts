/** The organisation's audit log (owners only): newest first, in pages. */
import { html, type SafeHtml } from '../../html.js';
import { layout, type Viewer, when } from './layout.js';

export interface AuditItem {
  actor: { kind: 'member'; email: string } | { kind: 'api_key'; prefix: string; name: string | null };
  action: string;
  object_id: string | null;
  /** The person the entry is about, by name, when it is one. */
  object_name: string | null;
  /** What was decided (a review's `decision` and `note`). */
  detail: Record<string, string> | null;
  ip: string;
  created_at: string;
}

const DECISIONS: Record<string, string> = {
  approve: 'Approved',
  request_rerecord: 'Asked for a new recording',
};

/** A review's decision (and note) in words under the action; other details as name: value. */
function detailLine(detail: Record<string, string> | null): SafeHtml {
  if (detail === null) return html``;
  const { decision, note, ...rest } = detail;
  const said = decision === undefined ? null : (DECISIONS[decision] ?? decision);
  return html`${said === null ? '' : html`<br><span class="decision">${said}</span>`}${
    note === undefined ? '' : html`: <q class="note">${note}</q>`
  }${Object.entries(rest).map(([name, value]) => html`<br><span class="muted">${name}: ${value}</span>`)}`;
}

/** Proof of an erasure (no personal data): what, when, by whom, how many objects. */
export interface ErasureItem {
  id: string;
  subject_id: string;
  actor: { type: string; id: string | null };
  counts: Record<string, number>;
  created_at: string;
}

function erasuresSection(erasures: ErasureItem[]): SafeHtml {
  return html`<h2 id="erasures-heading">Erasures</h2>
<p>Collections erased for good, at once or when their retention window closed: the proof that it happened, without the data.</p>
${
  erasures.length === 0
    ? html`<p class="empty" id="no-erasures">Nothing has been erased.</p>`
    : html`<table class="list stacked" id="erasures" aria-labelledby="erasures-heading">
<thead><tr><th>When</th><th>Collection</th><th>By</th><th>Objects</th></tr></thead>
<tbody>${erasures.map(
        (e) => html`<tr>
  <td data-label="When">${when(e.created_at)}</td>
  <td data-label="Collection" class="break"><code>${e.subject_id}</code></td>
  <td data-label="By">${e.actor.type === 'retention' ? 'Retention window' : html`${e.actor.type === 'api_key' ? 'API key' : 'Member'} <code>${e.actor.id ?? ''}</code>`}</td>
  <td data-label="Objects">${
    Object.entries(e.counts)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${kind.replace(/_/g, ' ')}`)
      .join(', ') || '—'
  }</td>
</tr>`,
      )}</tbody>
</table>`
}`;
}

const actorCell = (actor: AuditItem['actor']): SafeHtml =>
  actor.kind === 'member'
    ? html`<span class="break">${actor.email}</span>`
    : html`API key <code>${actor.prefix}…</code>${actor.name === null ? '' : html` <span class="muted">(${actor.name})</span>`}`;

export function auditPage(data: {
  styleUrl: string;
  viewer: Viewer;
  entries: AuditItem[];
  /** Link to the next (older) page, or null on the last one. */
  olderHref: string | null;
  firstPage: boolean;
  /** The latest erasures, shown on the first page. */
  erasures: ErasureItem[];
}): SafeHtml {
  return layout({
    title: 'Audit log',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'audit',
    body: html`<h1>Audit log</h1>
<p>Every change made to this organisation’s data, in the dashboard or through the API: who, what, which object, when and from which address. Newest first.</p>
${
  data.entries.length === 0
    ? html`<p class="empty" id="no-audit">Nothing has been changed yet.</p>`
    : html`<table class="list stacked" id="audit">
<thead><tr><th>When</th><th>Who</th><th>Action</th><th>Object</th><th>From</th></tr></thead>
<tbody>${data.entries.map(
        (e) => html`<tr data-action="${e.action}">
  <td data-label="When">${when(e.created_at)}</td>
  <td data-label="Who">${actorCell(e.actor)}</td>
  <td data-label="Action"><code>${e.action}</code>${detailLine(e.detail)}</td>
  <td data-label="Object" class="break">${
    e.object_id === null
      ? html`<span class="muted">—</span>`
      : html`${e.object_name === null ? '' : html`<bdi class="object-name">${e.object_name}</bdi><br>`}<code>${e.object_id}</code>`
  }</td>
  <td data-label="From"><code>${e.ip}</code></td>
</tr>`,
      )}</tbody>
</table>`
}
<p class="row">${data.firstPage ? '' : html`<a href="/dashboard/audit">Newest entries</a>`}
${data.olderHref === null ? '' : html`<a href="${data.olderHref}" id="older" rel="next">Older entries</a>`}</p>
${data.firstPage ? erasuresSection(data.erasures) : ''}`,
  });
}
