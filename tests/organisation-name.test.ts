/**
 * Renaming an organisation through the real app: admins rename it on the members page, viewers
 * cannot, the name is checked (trimmed, 1 to 100 characters, no control characters), audited with
 * the old and new name, and shown wherever the dashboard names the organisation: the header, the
 * organisations page, the invitation mail and the invitation page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import {
  type Browserish,
  get,
  inviteAndJoin,
  lastInvitationLink,
  newBrowser,
  pathOf,
  post,
  signIn,
} from './helpers/dashboard.js';

let t: TestApp;
let owner: Browserish & { csrf: string };
let admin: Browserish & { csrf: string };
let viewer: Browserish & { csrf: string };
const OWNER = 'registrar@example.com';

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, OWNER, '203.0.113.1');
  admin = await inviteAndJoin(t, owner, 'admin@example.com', 'admin', '203.0.113.2');
  viewer = await inviteAndJoin(t, owner, 'viewer@example.com', 'viewer', '203.0.113.3');
});
afterAll(() => t.close());

const rename = (who: Browserish & { csrf: string }, name: string) =>
  post(t, who, '/dashboard/organisation/name', { csrf: who.csrf, organisation_name_new: name });

describe('organisation name', () => {
  it('goes by its e-mail until an admin names it; then the header and organisations page show the name', async () => {
    const before = await get(t, viewer, '/dashboard');
    expect(before.body).toMatch(new RegExp(`id="organisation"[^>]*>${OWNER}<`));

    const renamed = await rename(admin, '  Northfield University  ');
    expect(renamed.statusCode).toBe(303);
    expect((await get(t, admin, renamed.headers.location as string)).body).toContain('The organisation is renamed.');

    const overview = await get(t, viewer, '/dashboard');
    expect(overview.body).toMatch(/id="organisation"[^>]*>Northfield University<span class="muted"> · viewer/);
    const organisations = await get(t, viewer, '/dashboard/organisations');
    expect(organisations.body).toContain('<strong>Northfield University</strong>');
    expect(organisations.body).toContain('You belong to one organisation.');
    expect(organisations.body).not.toContain(`<strong>${OWNER}</strong>`);

    const members = await get(t, owner, '/dashboard/members');
    expect(members.body).toMatch(/id="organisation-name-input"[^>]*value="Northfield University"/);
  });

  it('writes the old and new name to the audit log', async () => {
    await rename(owner, 'Northfield College');
    await rename(owner, 'Northfield University of the Arts');
    // Both renames may fall in one millisecond: find the second by what it did, not by its time.
    const entries = await t.deps.db.kysely
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'organisation.renamed')
      .execute();
    const details = entries.map((entry) => JSON.parse(entry.detail as string) as { from: string; to: string });
    expect(details).toContainEqual({ from: 'Northfield College', to: 'Northfield University of the Arts' });
    const entry = entries[details.findIndex((detail) => detail.to === 'Northfield University of the Arts')];
    expect(entry?.actor).toBe(OWNER);
    const log = await get(t, owner, '/dashboard/audit');
    expect(log.body).toContain('organisation.renamed');
    expect(log.body).toContain('Northfield University of the Arts');
  });

  it('refuses a viewer with 403, as every other change, and keeps the name', async () => {
    await rename(owner, 'Kept Name');
    expect((await rename(viewer, 'Taken Over')).statusCode).toBe(403);
    expect((await get(t, viewer, '/dashboard')).body).toMatch(/id="organisation"[^>]*>Kept Name</);
  });

  it.each([
    ['an empty name', '   ', 'Give the organisation a name.'],
    ['a name over 100 characters', 'x'.repeat(101), 'at most 100 characters'],
    ['a line break', 'Line\nbreak', 'cannot contain control characters'],
    ['a tab', 'Tab\there', 'cannot contain control characters'],
    ['a direction override', 'Evil\u202eName', 'direction overrides'],
  ])('refuses %s with a form error and keeps what was typed', async (_what, name, message) => {
    await rename(owner, 'Before Bad Input');
    const refused = await rename(admin, name);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('id="organisation-name-error"');
    expect(refused.body).toContain(message);
    if (name.trim() !== '') expect(refused.body).toContain(`value="${name.slice(0, 20)}`);
    expect(refused.body).toContain('aria-invalid="true"');
    expect((await get(t, admin, '/dashboard')).body).toMatch(/id="organisation"[^>]*>Before Bad Input</);
  });

  it('names the organisation in the invitation mail and on the invitation page', async () => {
    await rename(owner, 'Northfield Registry');
    const guest = 'guest@example.com';
    await post(t, owner, '/dashboard/members/invite', { csrf: owner.csrf, email: guest, role: 'viewer' });
    expect(t.deps.mailer.lastMessageTo(guest)?.text).toContain(
      `${OWNER} invited you to the voicename organisation Northfield Registry as viewer`,
    );
    const page = await get(t, newBrowser('198.51.100.9'), pathOf(lastInvitationLink(t, guest)));
    expect(page.body).toContain('Join Northfield Registry?');
  });
});
