/**
 * A collection's settings for the people it invites: deadline, language, self-editing, the
 * organisation's branding, and the invitation mail (sender, reply-to, reminders, message).
 */
import { LOCALE_NAMES, LOCALES } from '../../../i18n/index.js';
import { html, type SafeHtml } from '../../html.js';
import { type FormError, formErrorBox, invalidIf } from './collections.js';
import { csrfField, layout, type Viewer } from './layout.js';

/** The settings form as typed (text as entered, so a refused form comes back unchanged). */
export interface SettingsForm {
  deadline: string;
  language: string;
  self_edit: boolean;
  organisation_name: string;
  intro: string;
  privacy_note: string;
  /** `#rrggbb` as typed; empty: the service's own colours. */
  brand_color: string;
  sender_name: string;
  reply_to: string;
  reminders: string;
  message: string;
  reminder_message: string;
}

export function collectionSettingsPage(data: {
  styleUrl: string;
  viewer: Viewer;
  collection: { id: string; name: string; branding: { logo_url: string | null } };
  form: SettingsForm;
  placeholders: readonly string[];
  error?: FormError | null;
  /** Why the last logo upload was refused. */
  logoError?: string | null;
  /** What the last logo button did (the typed settings shown are not saved yet). */
  logoNotice?: string | null;
}): SafeHtml {
  const { collection, form } = data;
  const error = data.error ?? null;
  const text = (id: string, name: keyof SettingsForm, label: string, max: number, hint?: string, type = 'text') =>
    html`<label for="${id}">${label} <span class="muted">(optional)</span></label>
${hint ? html`<p class="muted" id="${id}-hint">${hint}</p>` : ''}
<input id="${id}" name="${name}" type="${type}" value="${form[name]}" maxlength="${max}" autocomplete="off"${hint ? html` aria-describedby="${id}-hint"` : ''}${invalidIf(error, paramOf(name))}>`;
  const area = (id: string, name: keyof SettingsForm, label: string, max: number, hint: string) =>
    html`<label for="${id}">${label} <span class="muted">(optional)</span></label>
<p class="muted" id="${id}-hint">${hint}</p>
<textarea id="${id}" name="${name}" rows="4" maxlength="${max}" aria-describedby="${id}-hint"${invalidIf(error, paramOf(name))}>${form[name]}</textarea>`;
  return layout({
    title: `Settings: ${collection.name}`,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'collections',
    body: html`<p><a href="/dashboard/collections/${collection.id}">← ${collection.name}</a></p>
<h1>Invitations and branding</h1>
${formErrorBox(error)}
<form method="post" action="/dashboard/collections/${collection.id}/settings" enctype="multipart/form-data" class="card stack" id="collection-settings">
${csrfField(data.viewer.csrfToken)}
<h2>Recording</h2>
${text('deadline', 'deadline', 'Deadline', 10, 'The last day to record. Shown on the record page and in mail; reminders count back from it.', 'date')}
<label for="language">Language of the record page, player page and mail</label>
<p class="muted" id="language-hint">A person whose browser asks for another of these languages sees that one.</p>
<select id="language" name="language" aria-describedby="language-hint">
${LOCALES.map((locale) => html`<option value="${locale}"${form.language === locale ? html` selected` : ''}>${LOCALE_NAMES[locale]}</option>`)}
</select>
<label class="check" for="self-edit"><input type="checkbox" id="self-edit" name="self_edit" value="1"${form.self_edit ? html` checked` : ''}> People may correct their display name, preferred name, pronouns and phonetic spelling</label>
<h2>Branding</h2>
${text('organisation-name', 'organisation_name', 'Organisation name', 100, 'Shown on the record page, the player page and in mail, so people know who asks.')}
${area('intro', 'intro', 'Introduction', 1000, 'A few words to the people you invite: why you ask for their name.')}
${area('privacy-note', 'privacy_note', 'Privacy note', 1000, 'Who can hear the recording. Without one, the record page says that anyone with the play link can.')}
${brandColorFields(form.brand_color, error)}
<h2>Invitation mail</h2>
${text('sender-name', 'sender_name', 'Sender name', 100, 'The name the mail comes from.')}
${text('reply-to', 'reply_to', 'Reply-to address', 254, 'Where replies go.', 'email')}
${text('reminders', 'reminders', 'Reminders', 40, 'Days before the deadline to remind people who have not recorded, separated by commas, e.g. 7, 2. At most 5.')}
${area('message', 'message', 'Invitation message', 5000, `Leave empty for the standard text in each person's language. Placeholders: ${data.placeholders.map((p) => `{{${p}}}`).join(' ')}.`)}
${area('reminder-message', 'reminder_message', 'Reminder message', 5000, `Sent as a reminder before the deadline, and to people e-mailed before when you e-mail them again. Leave empty for the standard reminder in each person's language. The same placeholders.`)}
<p><a href="/dashboard/collections/${collection.id}/invitations/preview">Preview the mail in each language</a> (save first)</p>
<div class="row"><button type="submit" class="primary">Save settings</button><a class="button" href="/dashboard/collections/${collection.id}">Cancel</a></div>
${logoFields(collection.id, collection.branding.logo_url, data.logoError ?? null, data.logoNotice ?? null)}
</form>`,
  });
}

/**
 * The organisation's logo: upload (re-encoded server-side) or remove. Its buttons send the whole
 * settings form to the logo's own routes, so what was typed above and below comes back unsaved
 * rather than lost; a file chosen before "Save settings" is saved with the rest. It comes after
 * "Save settings", so Enter in a field still saves (the first submit button is the default).
 */
function logoFields(collectionId: string, logoUrl: string | null, error: string | null, notice: string | null): SafeHtml {
  const base = `/dashboard/collections/${collectionId}/logo`;
  return html`<div class="stack" id="logo">
<h2>Logo</h2>
${logoUrl ? html`<p><img src="${logoUrl}" alt="Current logo" id="current-logo" class="logo-preview"></p>` : html`<p class="muted">No logo yet.</p>`}
${error ? html`<p class="error" id="logo-error" role="alert">${error}</p>` : ''}
${notice ? html`<p class="notice" id="logo-notice" role="status">${notice}</p>` : ''}
<label for="logo-file">Logo: PNG, JPEG or WebP, at most 1 MB <span class="muted">(optional)</span></label>
<p class="muted" id="logo-hint">Shown on the record page, the player page and in mail. It is re-encoded as a PNG of at most 512x512 pixels.</p>
<input type="file" id="logo-file" name="logo" accept="image/png,image/jpeg,image/webp" aria-describedby="logo-hint">
<div class="row"><button type="submit" formaction="${base}" formnovalidate>Upload logo</button>${logoUrl ? html`<button type="submit" formaction="${base}/remove" formnovalidate class="danger-link">Remove logo</button>` : ''}</div>
</div>`;
}

/** What the colour picker shows while no brand colour is set: the record page's own blue. */
export const PICKER_DEFAULT = '#2456d3';

/**
 * The brand colour: a colour picker and the same colour as text. Both are sent; the one changed
 * since the page was shown wins (`brand_color_shown` is what the text field showed), so the
 * form works without a script, and emptying the text removes the colour.
 */
function brandColorFields(value: string, error: FormError | null): SafeHtml {
  const picker = /^#[0-9a-fA-F]{6}$/.test(value) ? value.toLowerCase() : PICKER_DEFAULT;
  return html`<fieldset class="stack" id="brand-color">
<legend>Brand colour <span class="muted">(optional)</span></legend>
<p class="muted" id="brand-color-hint">The buttons and accents of the record page and the player page. Buttons carry white text, so the colour must be dark enough for it (WCAG AA, a contrast of 4.5:1). Leave the text empty for the standard colours.</p>
<div class="row">
<label for="brand-color-picker">Pick a colour</label>
<input type="color" id="brand-color-picker" name="brand_color_picker" value="${picker}" aria-describedby="brand-color-hint">
<label for="brand-color-text">or type it as #rrggbb</label>
<input type="text" id="brand-color-text" name="brand_color" value="${value}" maxlength="7" size="8" pattern="#[0-9a-fA-F]{6}" placeholder="#2456d3" autocomplete="off" spellcheck="false" aria-describedby="brand-color-hint"${invalidIf(error, 'branding.brand_color')}>
<input type="hidden" name="brand_color_shown" value="${value}">
</div>
</fieldset>`;
}

/** The API parameter a form field reports its errors under. */
function paramOf(name: keyof SettingsForm): string {
  if (name === 'organisation_name' || name === 'intro' || name === 'privacy_note' || name === 'brand_color')
    return `branding.${name}`;
  if (name === 'sender_name' || name === 'reply_to' || name === 'reminders' || name === 'message' || name === 'reminder_message')
    return `invitation_settings.${name}`;
  return name;
}
