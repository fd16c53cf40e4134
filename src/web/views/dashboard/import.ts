/**
 * Importing people from a CSV file, in two steps without a script: upload (nothing is written;
 * the page shows the first rows as they will be stored, every error with its row and column,
 * the ignored columns and the counts), then confirm (all rows or only the valid ones) and see
 * what was created, updated, left unchanged or failed.
 */
import { html, type SafeHtml } from '../../html.js';
import type { CollectionItem } from './collections.js';
import { csrfField, layout, type Viewer } from './layout.js';

/** One problem of the file: spreadsheet row (header = 1), the column as written, and what is wrong. */
export interface ImportIssue {
  row: number;
  column: string;
  message: string;
}

export interface ImportPreviewRow {
  row: number;
  action: 'create' | 'update' | 'unchanged' | 'error';
  email: string | null;
  display_name: string | null;
  first_name: string | null;
  last_name: string | null;
  preferred_name: string | null;
  pronouns: string | null;
  phonetic_spelling: string | null;
  external_id: string | null;
  custom_fields: Record<string, string | number | boolean>;
  /** For updates: each changed field, before → after. */
  changes: { field: string; before: string | number | boolean | null; after: string | number | boolean | null }[];
  /** Fields whose value the person set themselves and the import keeps. */
  kept: string[];
}

/** A value the person set on their record page that the file would change. */
export interface ImportPersonEdit {
  row: number;
  field: string;
  person_value: string | null;
  file_value: string | null;
  action: 'kept' | 'overwritten';
}

export interface ImportCounts {
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  errors: ImportIssue[];
  warnings: ImportIssue[];
}

type Page = { styleUrl: string; viewer: Viewer; collection: CollectionItem };

const ACTION_LABELS: Record<ImportPreviewRow['action'], string> = {
  create: 'New',
  update: 'Update',
  unchanged: 'Unchanged',
  error: 'Has errors',
};

/** The largest file, and most people, one import takes (the service's limits, shown before upload). */
export interface ImportLimits {
  maxRows: number;
  maxMegabytes: number;
}

function issueList(id: string, title: string, issues: ImportIssue[]): SafeHtml {
  if (issues.length === 0) return html``;
  return html`<section class="${id === 'import-errors' ? 'alert' : 'warning'}" id="${id}">
<h2>${title}</h2>
<ul class="issues">${issues.map(
    (i) => html`<li data-row="${i.row}"><strong>Row ${i.row}</strong>, column “${i.column}”: ${i.message}</li>`,
  )}</ul>
</section>`;
}

const plural = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

function counts(report: ImportCounts, future: boolean): SafeHtml {
  const verb = future ? { created: 'to create', updated: 'to update', unchanged: 'unchanged', failed: 'with errors' } : null;
  return html`<ul class="counts" id="import-counts">
<li><strong id="count-created">${report.created}</strong> ${verb ? verb.created : 'created'}</li>
<li><strong id="count-updated">${report.updated}</strong> ${verb ? verb.updated : 'updated'}</li>
<li><strong id="count-unchanged">${report.unchanged}</strong> unchanged</li>
<li><strong id="count-failed">${report.failed}</strong> ${verb ? verb.failed : 'failed (not imported)'}</li>
</ul>`;
}

export function importFormPage(
  data: Page & {
    limits: ImportLimits;
    columns: string[];
    error?: string | null;
    problems?: ImportIssue[];
    warnings?: ImportIssue[];
  },
): SafeHtml {
  const { collection } = data;
  return layout({
    title: `Import people · ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="/dashboard/collections/${collection.id}">← ${collection.name}</a></p>
<h1>Import people from a CSV file</h1>
${data.error ? html`<p class="alert" role="alert" id="form-error">${data.error}</p>` : ''}
${issueList('import-errors', 'The file cannot be imported', data.problems ?? [])}
${issueList('import-warnings', 'Ignored', data.warnings ?? [])}
<form method="post" action="/dashboard/collections/${collection.id}/import" enctype="multipart/form-data" class="card stack" id="import-upload">
${csrfField(data.viewer.csrfToken)}
<label for="import-file">CSV file <span class="muted">(up to ${plural(data.limits.maxRows, 'person', 'people')} and ${data.limits.maxMegabytes} MB)</span></label>
<input id="import-file" name="file" type="file" accept=".csv,.txt,text/csv" required aria-describedby="import-help">
<div id="import-help" class="muted">
<p>The first row names the columns. Needed: <code>email</code> and <code>first_name</code>. Also read: ${data.columns.map(
      (c, i) => html`${i > 0 ? ', ' : ''}<code>${c}</code>`,
    )}. Headings are matched loosely (“First Name”, “E-mail”, “Surname”); other columns are ignored.</p>
<p>Comma, semicolon or tab separated; UTF-8 or the Windows encoding Excel uses. A person already in the collection (same <code>external_id</code>, else same e-mail) is updated.</p>
</div>
${nameOrderChoice()}
<div class="row"><button type="submit" class="primary">Check the file</button><a class="button" href="/dashboard/collections/${collection.id}">Cancel</a></div>
<p class="muted">Nothing is written yet: the next page shows what the import will do.</p>
</form>`,
  });
}

/** How display names are composed from the first and last name columns. */
function nameOrderChoice(): SafeHtml {
  return html`<fieldset class="choices" aria-describedby="name-order-help">
<legend>Name order</legend>
<label class="choice"><input type="radio" name="name_order" value="given_first" id="name-order-given" checked> <span>Given name first <span class="muted">(Ada Lovelace)</span></span></label>
<label class="choice"><input type="radio" name="name_order" value="family_first" id="name-order-family"> <span>Family name first <span class="muted">(Zhang Wei, 张伟)</span></span></label>
<p id="name-order-help" class="muted">For names said family name first (Chinese, Japanese, Korean, Hungarian, Vietnamese); a <code>display_name</code> column always wins, and a <code>name_order</code> column sets it per person.</p>
</fieldset>`;
}

/**
 * When names look family-name-first but would be shown given name first: how many, and a check
 * of the same file with the family name first.
 */
function nameOrderHint(data: { base: string; csrfToken: string; token: string; fileName: string; rows: number }): SafeHtml {
  if (data.rows === 0) return html``;
  return html`<section class="warning" id="import-name-order-hint">
<h2>${plural(data.rows, 'name looks', 'names look')} family name first</h2>
<p>${data.rows === 1 ? 'It is' : 'They are'} written in Chinese, Japanese or Korean script, or marked as a Chinese, Japanese, Korean, Hungarian or Vietnamese name, and would be shown given name first (“Wei Zhang”, “伟 张”).</p>
<form method="post" action="${data.base}/import/recheck">
${csrfField(data.csrfToken)}
<input type="hidden" name="upload" value="${data.token}">
<input type="hidden" name="file_name" value="${data.fileName}">
<input type="hidden" name="name_order" value="family_first">
<button type="submit">Check again with the family name first</button>
</form>
</section>`;
}

/** The field names an organiser reads, for the provenance keys of the report. */
const FIELD_LABELS: Record<string, string> = {
  email: 'E-mail',
  first_name: 'First name',
  last_name: 'Last name',
  display_name: 'Name',
  preferred_name: 'Preferred name',
  pronouns: 'Pronouns',
  phonetic_spelling: 'Phonetic spelling',
  external_id: 'Your id',
};

function fieldLabel(field: string, fields: { key: string; label: string }[]): string {
  if (field.startsWith('custom_fields.')) {
    const key = field.slice('custom_fields.'.length);
    return fields.find((f) => f.key === key)?.label ?? key;
  }
  return FIELD_LABELS[field] ?? field;
}

const shown = (value: string | number | boolean | null) =>
  value === null || value === '' ? html`<span class="muted">empty</span>` : html`“${String(value)}”`;

/** Under "Update": what changes (before → after) and what the person set that is kept. */
function changeList(r: ImportPreviewRow, fields: { key: string; label: string }[]): SafeHtml {
  if (r.changes.length === 0 && r.kept.length === 0) return html``;
  return html`<ul class="changes">${r.changes.map(
    (c) => html`<li>${fieldLabel(c.field, fields)}: ${shown(c.before)} → ${shown(c.after)}</li>`,
  )}${r.kept.map((field) => html`<li class="kept">${fieldLabel(field, fields)}: kept, set by the person</li>`)}</ul>`;
}

/** Every value people set themselves that the file would change, with the choice to replace them. */
function personEditsSection(edits: ImportPersonEdit[], fields: { key: string; label: string }[]): SafeHtml {
  if (edits.length === 0) return html``;
  return html`<section class="warning" id="import-person-edits">
<h2>${plural(edits.length, 'value people set themselves is', 'values people set themselves are')} kept</h2>
<p>These people corrected their details on their record page after your last change. The import keeps what they wrote unless you choose to replace it below.</p>
<table class="list">
<thead><tr><th scope="col">Row</th><th scope="col">Field</th><th scope="col">They wrote</th><th scope="col">The file says</th></tr></thead>
<tbody>${edits.map(
    (e) =>
      html`<tr data-row="${e.row}"><td data-label="Row">${e.row}</td><td data-label="Field">${fieldLabel(e.field, fields)}</td><td data-label="They wrote">${shown(e.person_value)}</td><td data-label="The file says">${shown(e.file_value)}</td></tr>`,
  )}</tbody>
</table>
</section>`;
}

function previewTable(rows: ImportPreviewRow[], fields: { key: string; label: string }[]): SafeHtml {
  const text = (value: string | null) => (value === null || value === '' ? html`<span class="muted">—</span>` : value);
  return html`<table class="list preview" id="import-preview">
<thead><tr><th scope="col">Row</th><th scope="col">Will be</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">First name</th><th scope="col">Last name</th><th scope="col">Preferred name</th><th scope="col">Pronouns</th><th scope="col">Phonetic spelling</th><th scope="col">Your id</th>${fields.map(
    (f) => html`<th scope="col">${f.label}</th>`,
  )}</tr></thead>
<tbody>${rows.map(
    (r) => html`<tr data-row="${r.row}"${r.action === 'error' ? html` class="has-errors"` : ''}>
<td data-label="Row">${r.row}</td>
<td data-label="Will be">${r.action === 'error' ? html`<span class="badge off">${ACTION_LABELS[r.action]}</span>` : ACTION_LABELS[r.action]}${changeList(r, fields)}</td>
<td data-label="Name">${text(r.display_name)}</td>
<td data-label="E-mail" class="email">${text(r.email)}</td>
<td data-label="First name">${text(r.first_name)}</td>
<td data-label="Last name">${text(r.last_name)}</td>
<td data-label="Preferred name">${text(r.preferred_name)}</td>
<td data-label="Pronouns">${text(r.pronouns)}</td>
<td data-label="Phonetic spelling">${text(r.phonetic_spelling)}</td>
<td data-label="Your id">${text(r.external_id)}</td>
${fields.map((f) => {
  const value = r.custom_fields[f.key];
  return html`<td data-label="${f.label}">${value === undefined ? text(null) : typeof value === 'boolean' ? (value ? 'Yes' : 'No') : String(value)}</td>`;
})}
</tr>`,
  )}</tbody>
</table>`;
}

export function importPreviewPage(
  data: Page & {
    fileName: string;
    token: string;
    report: ImportCounts & {
      preview: ImportPreviewRow[];
      person_edits: ImportPersonEdit[];
      name_order: 'given_first' | 'family_first';
      /** Names that look family-name-first and would be shown given name first. */
      family_name_first_rows: number;
    };
    fields: { key: string; label: string }[];
  },
): SafeHtml {
  const { collection, report } = data;
  const familyFirst = report.name_order === 'family_first';
  const valid = report.rows - report.failed;
  const base = `/dashboard/collections/${collection.id}`;
  return layout({
    title: `Check the import · ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="${base}">← ${collection.name}</a></p>
<h1>Check the import</h1>
<p id="import-summary"><strong>${data.fileName}</strong>: ${plural(report.rows, 'person', 'people')}${
      report.failed > 0 ? html`, <strong>${plural(report.failed, 'row has', 'rows have')} errors</strong>` : ', no errors'
    }. Nothing is written until you confirm.</p>
<p id="import-name-order">Names: <strong>${familyFirst ? 'family name first' : 'given name first'}</strong> (“${familyFirst ? 'Zhang Wei' : 'Wei Zhang'}”) where the file gives no display name.</p>
${counts(report, true)}
${familyFirst ? '' : nameOrderHint({ base, csrfToken: data.viewer.csrfToken, token: data.token, fileName: data.fileName, rows: report.family_name_first_rows })}
${issueList('import-errors', `Errors (${report.errors.length})`, report.errors)}
${issueList('import-warnings', 'Ignored', report.warnings)}
${personEditsSection(report.person_edits, data.fields)}
<h2>The first ${report.preview.length} rows as they will be stored</h2>
${previewTable(report.preview, data.fields)}
<form method="post" action="${base}/import/confirm" class="card stack" id="import-confirm">
${csrfField(data.viewer.csrfToken)}
<input type="hidden" name="upload" value="${data.token}">
<input type="hidden" name="name_order" value="${report.name_order}">
${
  report.person_edits.length > 0
    ? html`<label class="check" for="overwrite-person-edits"><input type="checkbox" name="overwrite_person_edits" value="1" id="overwrite-person-edits"> Replace the ${plural(report.person_edits.length, 'value', 'values')} people set themselves with the file’s</label>`
    : ''
}
${
  report.failed === 0
    ? html`<input type="hidden" name="mode" value="all_or_nothing">
<div class="row"><button type="submit" class="primary">Import ${plural(valid, 'person', 'people')}</button><a class="button" href="${base}/import">Choose another file</a></div>`
    : valid === 0
      ? html`<p>No row can be imported. Fix the file and upload it again.</p>
<div class="row"><a class="button primary" href="${base}/import">Upload a corrected file</a></div>`
      : html`<p>Fix the file and upload it again, or import the ${plural(valid, 'valid row', 'valid rows')} now and the others later.</p>
<input type="hidden" name="mode" value="valid_rows">
<div class="row"><a class="button primary" href="${base}/import">Upload a corrected file</a><button type="submit">Import only the ${plural(valid, 'valid row', 'valid rows')}</button></div>`
}
<p class="muted">This check is kept for 30 minutes.</p>
</form>`,
  });
}

export function importResultPage(data: Page & { report: ImportCounts }): SafeHtml {
  const { collection, report } = data;
  const base = `/dashboard/collections/${collection.id}`;
  return layout({
    title: `Imported · ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    notice: 'The file is imported.',
    body: html`<p><a href="${base}">← ${collection.name}</a></p>
<h1>Import done</h1>
${counts(report, false)}
${issueList('import-errors', `Rows not imported (${report.failed})`, report.errors)}
${issueList('import-warnings', 'Ignored', report.warnings)}
<p class="row"><a class="button primary" href="${base}">See the people</a><a class="button" href="${base}/import">Import another file</a></p>`,
  });
}
