/** Members of the organisation: the list (admins and owners), and for owners invitations, roles and removal; the invitation confirmation. */
import { html, type SafeHtml } from '../../html.js';
import { actionButton, csrfField, layout, type Role, type Viewer, when } from './layout.js';

export interface MemberItem {
  email: string;
  role: Role;
  createdAt: string;
  invitedBy: string | null;
}

export interface InvitationItem {
  id: string;
  email: string;
  role: Role;
  invitedBy: string;
  expiresAt: string;
}

const ROLES: { role: Role; label: string }[] = [
  { role: 'viewer', label: 'Viewer: sees everything, changes nothing' },
  { role: 'admin', label: 'Admin: everything but members and the audit log' },
  { role: 'owner', label: 'Owner: everything' },
];

const roleOptions = (selected: Role) =>
  ROLES.map((r) => html`<option value="${r.role}"${r.role === selected ? html` selected` : ''}>${r.label}</option>`);

function memberRow(member: MemberItem, index: number, owner: boolean, csrf: string): SafeHtml {
  const manage = owner
    ? html`<form method="post" action="/dashboard/members/role" class="row">${csrfField(csrf)}<input type="hidden" name="email" value="${member.email}">
    <label class="visually-hidden" for="role-${index}">Role of ${member.email}</label>
    <select id="role-${index}" name="role">${roleOptions(member.role)}</select>
    <button type="submit">Change role</button></form>
    <form method="post" action="/dashboard/members/remove" class="inline">${csrfField(csrf)}<input type="hidden" name="email" value="${member.email}"><button type="submit" class="link danger-link" aria-label="Remove ${member.email}">Remove</button></form>`
    : '';
  return html`<tr data-member="${member.email}">
  <td data-label="Member" class="break">${member.email}</td>
  <td data-label="Role"><span class="role">${member.role}</span></td>
  <td data-label="Joined">${when(member.createdAt)}</td>
  <td data-label="Invited by" class="break">${member.invitedBy ?? html`<span class="muted">Started the organisation</span>`}</td>
  ${owner ? html`<td>${manage}</td>` : ''}
</tr>`;
}

export function membersPage(data: {
  styleUrl: string;
  viewer: Viewer;
  members: MemberItem[];
  invitations: InvitationItem[];
  notice?: string | null;
  error?: string | null;
  /** The invitation form's values after a refusal. */
  invite?: { email: string; role: Role };
  /** The organisation's name (null: it goes by its e-mail). */
  organisation: { name: string | null; email: string };
  /** Why the last rename was refused, and what was typed. */
  nameError?: string | null;
  typedName?: string;
}): SafeHtml {
  const owner = data.viewer.role === 'owner';
  const csrf = data.viewer.csrfToken;
  const invite = data.invite ?? { email: '', role: 'viewer' as Role };
  return layout({
    title: 'Members',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'members',
    notice: data.notice ?? null,
    body: html`<h1>Members</h1>
<p>Everyone here works on this organisation’s keys, collections, webhooks and profiles. Viewers can only look; admins can change everything but the members and the audit log; owners can do everything. An organisation always keeps at least one owner.</p>
${data.error ? html`<p class="error" role="alert" id="members-error">${data.error}</p>` : ''}
${organisationNameForm(data.organisation, csrf, data.nameError ?? null, data.typedName)}
<section class="card" id="single-sign-on">
<h2>Single sign-on</h2>
<p>Let members sign in through your identity provider (OpenID Connect: Entra ID, Okta, Google Workspace) and join by their verified e-mail domain. <a href="/dashboard/sso">Set up single sign-on</a></p>
</section>
${
  owner
    ? html`<section class="card">
<h2>Invite someone</h2>
<form method="post" action="/dashboard/members/invite" class="row">
  ${csrfField(csrf)}
  <label for="invite-email">E-mail address</label>
  <input id="invite-email" name="email" type="email" maxlength="254" autocomplete="off" required value="${invite.email}">
  <label for="invite-role">Role</label>
  <select id="invite-role" name="role">${roleOptions(invite.role)}</select>
  <button type="submit" class="primary">Send invitation</button>
</form>
<p class="muted">The invitation link works once, within 7 days, and signs the person in to this organisation.</p>
</section>`
    : ''
}
<table class="list stacked" id="members">
<thead><tr><th>Member</th><th>Role</th><th>Joined</th><th>Invited by</th>${owner ? html`<th><span class="visually-hidden">Manage</span></th>` : ''}</tr></thead>
<tbody>${data.members.map((m, i) => memberRow(m, i, owner, csrf))}</tbody>
</table>
${
  data.invitations.length === 0
    ? ''
    : html`<h2>Pending invitations</h2>
<table class="list stacked" id="invitations">
<thead><tr><th>E-mail</th><th>Role</th><th>Invited by</th><th>Expires</th>${owner ? html`<th><span class="visually-hidden">Withdraw</span></th>` : ''}</tr></thead>
<tbody>${data.invitations.map(
        (inv) => html`<tr data-invitation="${inv.email}">
  <td data-label="E-mail" class="break">${inv.email}</td>
  <td data-label="Role">${inv.role}</td>
  <td data-label="Invited by" class="break">${inv.invitedBy}</td>
  <td data-label="Expires">${when(inv.expiresAt)}</td>
  ${owner ? html`<td>${actionButton(`/dashboard/members/invitations/${inv.id}/withdraw`, 'Withdraw', csrf, 'link danger-link')}</td>` : ''}
</tr>`,
      )}</tbody>
</table>`
}`,
  });
}

/** The organisation's name: what the header, the organisations page and invitations to join call it. */
function organisationNameForm(
  organisation: { name: string | null; email: string },
  csrf: string,
  error: string | null,
  typed: string | undefined,
): SafeHtml {
  const value = typed ?? organisation.name ?? '';
  return html`<section class="card" id="organisation-name">
<h2>Organisation name</h2>
<form method="post" action="/dashboard/organisation/name" class="row">
  ${csrfField(csrf)}
  <label for="organisation-name-input">Name</label>
  <input id="organisation-name-input" name="organisation_name_new" maxlength="100" required value="${value}" placeholder="${organisation.email}" aria-describedby="organisation-name-hint${error ? ' organisation-name-error' : ''}"${error ? html` aria-invalid="true"` : ''}>
  <button type="submit">Rename</button>
</form>
${error ? html`<p class="error" role="alert" id="organisation-name-error">${error}</p>` : ''}
<p class="muted" id="organisation-name-hint">Shown at the top of every page, on the organisations page and in invitations to join.${organisation.name === null ? html` Until it has one, the organisation goes by ${organisation.email}.` : ''}</p>
</section>`;
}

/** What an invitation link shows before anything happens (mail scanners that follow links use nothing up). */
export function invitationPage(data: {
  styleUrl: string;
  action: string;
  csrfToken: string;
  email: string;
  organisation: string;
  role: Role;
  invitedBy: string;
}): SafeHtml {
  return layout({
    title: 'Invitation',
    styleUrl: data.styleUrl,
    body: html`<section class="card narrow">
<h1>Join ${data.organisation}?</h1>
<p>${data.invitedBy} invited <strong>${data.email}</strong> to the voicename organisation <strong>${data.organisation}</strong> as <strong>${data.role}</strong>.</p>
<form method="post" action="${data.action}" class="stack">
  ${csrfField(data.csrfToken)}
  <button type="submit" class="primary" id="accept-invitation">Join and sign in as ${data.email}</button>
</form>
<p class="muted">The link works once. Not for you? Close this page; nothing happens until the button is pressed.</p>
</section>`,
  });
}
