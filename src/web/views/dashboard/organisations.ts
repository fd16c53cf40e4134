/** The organisation picker: a person who belongs to several organisations chooses the one to act in. */
import { html, type SafeHtml } from '../../html.js';
import { csrfField, layout, type Role, type Viewer } from './layout.js';

export interface OrganisationChoice {
  accountId: string;
  /** The organisation's own e-mail: its name. */
  name: string;
  role: Role;
  current: boolean;
}

export function organisationsPage(data: { styleUrl: string; viewer: Viewer; organisations: OrganisationChoice[] }): SafeHtml {
  const items = data.organisations.map(
    (org) => html`<li class="row" data-account-id="${org.accountId}">
  <span class="break"><strong>${org.name}</strong> <span class="muted">${org.role}</span></span>
  ${
    org.current
      ? html`<span class="badge ok">Current</span>`
      : html`<form method="post" action="/dashboard/organisations/switch" class="inline">${csrfField(data.viewer.csrfToken)}<input type="hidden" name="account" value="${org.accountId}"><button type="submit" aria-label="Switch to ${org.name}">Switch to this organisation</button></form>`
  }
</li>`,
  );
  return layout({
    title: 'Organisations',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'organisations',
    body: html`<section class="card narrow">
<h1>Your organisations</h1>
${
  data.organisations.length === 0
    ? html`<p id="no-organisations">${data.viewer.email} is not a member of any organisation. Ask an owner of one to invite you.</p>`
    : data.organisations.length === 1
      ? html`<p>You belong to one organisation. When another organisation invites you, it appears here and you can switch between them.</p>
<ul class="stack plain" id="organisations">${items}</ul>`
      : html`<p>You belong to ${data.organisations.length} organisations. Choose the one to work in; you can switch at any time from the top of every page.</p>
<ul class="stack plain" id="organisations">${items}</ul>`
}
</section>`,
  });
}
