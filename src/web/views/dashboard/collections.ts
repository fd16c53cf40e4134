/**
 * Collection pages: the list with recording progress, the create form (with custom field rows
 * that grow without a script), the edit form and the archive confirmation.
 */
import { html, type SafeHtml } from '../../html.js';
import { confirmationPage, csrfField, layout, type Viewer, when } from './layout.js';

export interface CollectionItem {
  id: string;
  name: string;
  description: string | null;
  member_count: number;
  recorded_count: number;
  created_at: string;
  custom_fields: { key: string; label: string; type: string; required?: boolean }[];
  review_required?: boolean;
}

/** A form's error: the message and the field it is about (`param` of the service's error). */
export interface FormError {
  message: string;
  param?: string | null;
}

export const MAX_COLLECTION_NAME = 255;
export const MAX_COLLECTION_DESCRIPTION = 10_000;
/** Custom field types the create form offers (select fields need options: the API creates them). */
export const FORM_FIELD_TYPES = ['text', 'number', 'email', 'url', 'boolean'] as const;
export const FIELD_ROWS_START = 3;
export const FIELD_ROWS_STEP = 3;

/** "12 of 480 recorded" with a native progress bar (announced by screen readers as a percentage). */
export function progressBar(collection: { id: string; name: string; member_count: number; recorded_count: number }): SafeHtml {
  const { member_count: total, recorded_count: recorded } = collection;
  const percent = total === 0 ? 0 : Math.floor((recorded / total) * 100);
  const labelId = `progress-label-${collection.id}`;
  return html`<div class="progress">
<progress max="${Math.max(total, 1)}" value="${recorded}" aria-labelledby="${labelId}"></progress>
<span id="${labelId}" class="progress-text"><span class="visually-hidden">Recorded in ${collection.name}: </span><strong>${recorded}</strong> of ${total} recorded${total > 0 ? html` <span class="muted">(${percent} %)</span>` : ''}</span>
</div>`;
}

export function collectionsPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collections: CollectionItem[];
  nextCursor: string | null;
  notice?: string | null;
}): SafeHtml {
  const items = data.collections.map(
    (c) => html`<li class="card collection" data-collection-id="${c.id}">
<h2><a href="/dashboard/collections/${c.id}">${c.name}</a></h2>
${c.description ? html`<p class="description">${c.description}</p>` : ''}
${progressBar(c)}
<p class="muted">Created ${when(c.created_at)}</p>
</li>`,
  );
  return layout({
    title: 'Collections',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    notice: data.notice ?? null,
    body: html`<div class="heading-row"><h1>Collections</h1><a class="button primary" href="/dashboard/collections/new">New collection</a></div>
<p>A collection is a group of people who record how their name is said: a graduating class, new staff, the speakers of a conference.</p>
${
  data.collections.length === 0
    ? html`<p class="empty" id="no-collections">No collections yet. <a href="/dashboard/collections/new">Create the first one</a>.</p>`
    : html`<ul class="plain" id="collections">${items}</ul>`
}
${data.nextCursor ? html`<p><a class="button" href="/dashboard/collections?cursor=${data.nextCursor}">More collections →</a></p>` : ''}`,
  });
}

export interface FieldRow {
  key: string;
  label: string;
  type: string;
  /** Every person must have a value (imports and the API refuse a row without one). */
  required: boolean;
}

export interface NewCollectionForm {
  name: string;
  description: string;
  fields: FieldRow[];
}

export const invalidIf = (error: FormError | null | undefined, ...params: string[]): SafeHtml =>
  error?.param && params.some((p) => error.param === p || error.param?.startsWith(`${p}.`) || error.param?.startsWith(`${p}[`))
    ? html` aria-invalid="true" aria-describedby="form-error"`
    : html``;

export const formErrorBox = (error: FormError | null | undefined): SafeHtml =>
  error ? html`<p class="alert" role="alert" id="form-error">${error.message}</p>` : html``;

/** A row for a new field; `offset` = fields listed before it in the request (their errors are `custom_fields[offset + index]`). */
function fieldRow(row: FieldRow, index: number, error: FormError | null | undefined, offset = 0): SafeHtml {
  const n = index + 1;
  const param = `custom_fields[${offset + index}]`;
  return html`<fieldset class="field-row">
<legend>${offset > 0 ? 'New field' : 'Field'} ${n}</legend>
<div class="field-cell"><label for="field-label-${n}">Label</label>
<input id="field-label-${n}" name="field_label_${index}" value="${row.label}" maxlength="100" autocomplete="off"${invalidIf(error, `${param}.label`)}></div>
<div class="field-cell"><label for="field-key-${n}">Key <span class="muted">(optional)</span></label>
<input id="field-key-${n}" name="field_key_${index}" value="${row.key}" maxlength="63" autocomplete="off" spellcheck="false" pattern="[a-z][a-z0-9_]*" aria-describedby="field-key-hint"${invalidIf(error, `${param}.key`)}></div>
<div class="field-cell"><label for="field-type-${n}">Type</label>
<select id="field-type-${n}" name="field_type_${index}">${FORM_FIELD_TYPES.map(
    (type) => html`<option value="${type}"${row.type === type ? html` selected` : ''}>${type}</option>`,
  )}</select></div>
<label class="check" for="field-required-${n}"><input type="checkbox" id="field-required-${n}" name="field_required_${index}" value="1"${row.required ? html` checked` : ''}> Required</label>
</fieldset>`;
}

export function newCollectionPage(data: {
  styleUrl: string;
  viewer: Viewer;
  form: NewCollectionForm;
  maxFields: number;
  error?: FormError | null;
}): SafeHtml {
  const { form, error } = data;
  return layout({
    title: 'New collection',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="/dashboard/collections">← Collections</a></p>
<h1>New collection</h1>
${formErrorBox(error)}
<form method="post" action="/dashboard/collections" class="card stack" id="new-collection">
${csrfField(data.viewer.csrfToken)}
<label for="collection-name">Name</label>
<input id="collection-name" name="name" value="${form.name}" maxlength="${MAX_COLLECTION_NAME}" required autocomplete="off"${invalidIf(error, 'name')}>
<label for="collection-description">Description <span class="muted">(optional)</span></label>
<textarea id="collection-description" name="description" rows="3" maxlength="${MAX_COLLECTION_DESCRIPTION}"${invalidIf(error, 'description')}>${form.description}</textarea>
<h2>Custom fields <span class="muted">(optional)</span></h2>
<p class="muted" id="field-key-hint">Extra facts about each person, such as a seat number or a student id. The key is how the API and CSV files name the field (lower-case letters, digits and <code>_</code>); left empty, it is made from the label. Fields can be added, relabelled and removed later on the collection's edit page.</p>
<input type="hidden" name="field_rows" value="${form.fields.length}">
${form.fields.map((row, i) => fieldRow(row, i, error))}
<div class="row">
${form.fields.length < data.maxFields ? html`<button type="submit" name="more_fields" value="1">More field rows</button>` : ''}
<button type="submit" class="primary">Create collection</button>
</div>
</form>`,
  });
}

export interface EditCollectionForm {
  name: string;
  description: string;
  review_required: boolean;
}

/** The custom fields form as shown: each existing field's label and whether to remove it, then rows for new fields. */
export interface FieldsForm {
  labels: Record<string, string>;
  /** Required as ticked; a field not listed keeps what it is. */
  required: Record<string, boolean>;
  remove: string[];
  added: FieldRow[];
}

export function editCollectionPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: CollectionItem & { custom_fields: { key: string; label: string; type: string }[] };
  form: EditCollectionForm;
  fields: FieldsForm;
  maxFields: number;
  error?: FormError | null;
  fieldsError?: FormError | null;
}): SafeHtml {
  const { collection, form, error, fields } = data;
  const fieldsError = data.fieldsError ?? null;
  const existing = collection.custom_fields.map(
    (field, i) => html`<fieldset class="field-row" data-field-key="${field.key}">
<legend><code>${field.key}</code> <span class="muted">(${field.type})</span></legend>
<div class="field-cell"><label for="existing-label-${i + 1}">Label</label>
<input id="existing-label-${i + 1}" name="label_${field.key}" value="${fields.labels[field.key] ?? field.label}" maxlength="100" required autocomplete="off"${invalidIf(fieldsError, `custom_fields[${i}].label`)}></div>
<label class="check" for="existing-required-${i + 1}"><input type="checkbox" id="existing-required-${i + 1}" name="required_${field.key}" value="1"${(fields.required[field.key] ?? field.required) ? html` checked` : ''}> Required: every person must have a value</label>
<label class="check"><input type="checkbox" name="remove_${field.key}" value="1"${fields.remove.includes(field.key) ? html` checked` : ''}> Remove this field and delete its values</label>
</fieldset>`,
  );
  const room = data.maxFields - collection.custom_fields.length;
  return layout({
    title: 'Edit collection',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="/dashboard/collections/${collection.id}">← ${collection.name}</a></p>
<h1>Edit collection</h1>
${formErrorBox(error)}
<form method="post" action="/dashboard/collections/${collection.id}/edit" class="card stack" id="edit-collection">
${csrfField(data.viewer.csrfToken)}
<label for="collection-name">Name</label>
<input id="collection-name" name="name" value="${form.name}" maxlength="${MAX_COLLECTION_NAME}" required autocomplete="off"${invalidIf(error, 'name')}>
<label for="collection-description">Description <span class="muted">(optional)</span></label>
<textarea id="collection-description" name="description" rows="4" maxlength="${MAX_COLLECTION_DESCRIPTION}"${invalidIf(error, 'description')}>${form.description}</textarea>
<label class="check" for="review-required"><input type="checkbox" id="review-required" name="review_required" value="1"${form.review_required ? html` checked` : ''}> Review required: a recording counts as recorded only once someone approves it</label>
<div class="row"><button type="submit" class="primary">Save</button><a class="button" href="/dashboard/collections/${collection.id}">Cancel</a></div>
</form>
<h2 id="fields-heading">Custom fields</h2>
${fieldsError ? html`<p class="alert" role="alert" id="fields-error">${fieldsError.message}</p>` : ''}
<form method="post" action="/dashboard/collections/${collection.id}/fields" class="card stack" id="edit-fields" aria-labelledby="fields-heading">
${csrfField(data.viewer.csrfToken)}
<p class="muted" id="field-key-hint">A field keeps its key and type; values people already have stay when you relabel it. Removing a field deletes its values from everyone. New fields: the key is made from the label when left empty.</p>
${existing.length === 0 ? html`<p class="muted" id="no-fields">No custom fields yet.</p>` : existing}
<input type="hidden" name="field_rows" value="${fields.added.length}">
${fields.added.map((row, i) => fieldRow(row, i, fieldsError, collection.custom_fields.length))}
<div class="row">
${fields.added.length < room ? html`<button type="submit" name="more_fields" value="1">More field rows</button>` : ''}
<button type="submit" class="primary">Save fields</button>
</div>
</form>`,
  });
}

export function archiveCollectionPage(data: { styleUrl: string; viewer: Viewer; collection: CollectionItem }): SafeHtml {
  const { collection } = data;
  return confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    title: 'Archive collection',
    heading: html`Archive ${collection.name}?`,
    details: html`<p>${collection.member_count} ${collection.member_count === 1 ? 'person' : 'people'}, ${collection.recorded_count} recorded.</p>
<p class="warning">The collection disappears from the dashboard and the API, and its play links and recording links stop working at once. The data is kept, but there is no way back from here.</p>`,
    action: `/dashboard/collections/${collection.id}/archive`,
    actionLabel: 'Archive collection',
    tone: 'danger',
    cancelHref: `/dashboard/collections/${collection.id}`,
  });
}
