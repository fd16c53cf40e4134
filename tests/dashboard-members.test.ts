/**
 * Organisations in the dashboard through the real app: invitations end to end (mailbox → link →
 * member, single use, expiry, withdrawal, limits), picking and switching organisations, what each
 * role sees, the last-owner rule, and one organisation never seeing another's members, keys,
 * webhooks or audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVITATION_TTL_MS, INVITATIONS_PER_HOUR } from '../src/features/accounts/members-service.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import {
  askForLink,
  type Browserish,
  csrfOf,
  get,
  inviteAndJoin,
  lastInvitationLink,
  lastSignInLink,
  newBrowser,
  pathOf,
  post,
  signIn,
} from './helpers/dashboard.js';

let t: TestApp;
const clock = new ManualClock('2026-03-01T09:00:00.000Z');
let alice: Browserish & { csrf: string };
const ALICE = 'alice@example.com';
let n = 0;
const unique = (label: string) => `${label}-${++n}@example.com`;

beforeAll(async () => {
  // Sessions outlive the clock jumps below (invitations last 7 days).
  t = await createTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SESSION_TTL: '90d' } });
  alice = await signIn(t, ALICE, '203.0.113.1');
});
afterAll(() => t.close());

const accountIdOf = async (email: string) =>
  (await t.deps.db.kysely.selectFrom('accounts').select('id').where('email', '=', email).executeTakeFirstOrThrow()).id;

describe('invitations', () => {
  it('mails a link that makes the person a member of the organisation and signs them in', async () => {
    const carol = unique('carol');
    const invited = await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: carol, role: 'admin' });
    expect(invited.statusCode).toBe(303);
    expect((await get(t, alice, invited.headers.location as string)).body).toContain('The invitation is on its way');

    const message = t.deps.mailer.lastMessageTo(carol);
    expect(message?.subject).toBe('You are invited to a voicename organisation');
    expect(message?.text).toContain(`${ALICE} invited you to the voicename organisation ${ALICE} as admin`);
    const path = pathOf(lastInvitationLink(t, carol));
    const stored = await t.deps.db.kysely.selectFrom('account_invitations').selectAll().where('email', '=', carol).execute();
    expect(JSON.stringify(stored)).not.toContain(path.split('/').pop()); // only the hash is stored

    // Opening the link (a person, or a mail scanner) changes nothing and signs nobody in.
    const browser = newBrowser('198.51.100.7');
    const offer = await get(t, browser, path);
    expect(offer.statusCode).toBe(200);
    expect(offer.body).toContain(`Join ${ALICE}?`);
    expect(browser.cookies.has('vn_session')).toBe(false);
    expect((await post(t, browser, path, {})).statusCode).toBe(403); // no form token

    const joined = await post(t, browser, path, { csrf: csrfOf(offer.body) });
    expect(joined.statusCode).toBe(303);
    expect(joined.headers.location).toBe('/dashboard');
    const overview = await get(t, browser, '/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain(`<span id="signed-in-as">${carol}</span>`);
    expect(overview.body).toMatch(new RegExp(`id="organisation"[^>]*>${ALICE}<span class="muted"> · admin`));

    const member = await t.deps.db.kysely
      .selectFrom('account_members')
      .selectAll()
      .where('email', '=', carol)
      .executeTakeFirstOrThrow();
    expect(member).toMatchObject({ account_id: await accountIdOf(ALICE), role: 'admin', invited_by: ALICE });
    // No organisation of her own was created for her.
    expect(await t.deps.db.kysely.selectFrom('accounts').select('id').where('email', '=', carol).execute()).toHaveLength(0);

    // Single use: the same link again, in any browser, is refused.
    const again = await get(t, newBrowser('198.51.100.8'), path);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('already been used');

    // Later she signs in as usual and lands in the organisation she belongs to.
    const later = await signIn(t, carol, '198.51.100.9');
    expect((await get(t, later, '/dashboard')).body).toContain(`>${ALICE}<span class="muted"> · admin`);
  });

  it('expires a link after exactly 7 days', async () => {
    const early = unique('early');
    const late = unique('late');
    await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: early, role: 'viewer' });
    await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: late, role: 'viewer' });
    const earlyPath = pathOf(lastInvitationLink(t, early));
    const latePath = pathOf(lastInvitationLink(t, late));
    const earlyBrowser = newBrowser();
    const lateBrowser = newBrowser();
    const earlyOffer = await get(t, earlyBrowser, earlyPath);
    const lateOffer = await get(t, lateBrowser, latePath);
    clock.advance(INVITATION_TTL_MS - 1);
    expect((await post(t, earlyBrowser, earlyPath, { csrf: csrfOf(earlyOffer.body) })).statusCode).toBe(303);
    clock.advance(1);
    expect((await post(t, lateBrowser, latePath, { csrf: csrfOf(lateOffer.body) })).statusCode).toBe(400);
    expect((await get(t, newBrowser(), latePath)).statusCode).toBe(400);
  });

  it('withdraws an invitation (its link stops working) and replaces an older one to the same address', async () => {
    const dave = unique('dave');
    await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: dave, role: 'viewer' });
    const first = pathOf(lastInvitationLink(t, dave));
    await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: dave, role: 'admin' });
    const second = pathOf(lastInvitationLink(t, dave));
    expect((await get(t, newBrowser(), first)).statusCode).toBe(400);
    const page = await get(t, alice, '/dashboard/members');
    expect(page.body.match(new RegExp(`data-invitation="${dave}"`, 'g'))).toHaveLength(1);
    const id = (
      await t.deps.db.kysely
        .selectFrom('account_invitations')
        .select('id')
        .where('email', '=', dave)
        .where('role', '=', 'admin')
        .executeTakeFirstOrThrow()
    ).id;
    expect((await post(t, alice, `/dashboard/members/invitations/${id}/withdraw`, { csrf: alice.csrf })).statusCode).toBe(303);
    expect((await get(t, newBrowser(), second)).statusCode).toBe(400);
    expect((await get(t, alice, '/dashboard/members')).body).not.toContain(`data-invitation="${dave}"`);
  });

  it('refuses a bad address, a bad role and an existing member, and says why', async () => {
    const bad = await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: 'not-an-address', role: 'viewer' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('is not a valid e-mail address');
    const role = await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: unique('r'), role: 'superuser' });
    expect(role.statusCode).toBe(400);
    expect(role.body).toContain('The role must be owner, admin or viewer.');
    const existing = await post(t, alice, '/dashboard/members/invite', {
      csrf: alice.csrf,
      email: ALICE.toUpperCase(),
      role: 'viewer',
    });
    expect(existing.statusCode).toBe(409);
    expect(existing.body).toContain('is already a member');
  });

  it(`sends at most ${INVITATIONS_PER_HOUR} invitations per organisation per hour`, async () => {
    const owner = await signIn(t, unique('busy-owner'), '203.0.113.77');
    for (let i = 0; i < INVITATIONS_PER_HOUR; i++) {
      const res = await post(t, owner, '/dashboard/members/invite', { csrf: owner.csrf, email: unique('guest'), role: 'viewer' });
      expect(res.statusCode).toBe(303);
    }
    const guest = unique('one-too-many');
    const refused = await post(t, owner, '/dashboard/members/invite', { csrf: owner.csrf, email: guest, role: 'viewer' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(t.deps.mailer.lastMessageTo(guest)).toBeUndefined();
    clock.advance(60 * 60_000);
    expect(
      (await post(t, owner, '/dashboard/members/invite', { csrf: owner.csrf, email: guest, role: 'viewer' })).statusCode,
    ).toBe(303);
  });
});

describe('several organisations', () => {
  it('lets a person in several organisations pick one after signing in, and switch', async () => {
    const erin = unique('erin');
    const own = await signIn(t, erin, '203.0.113.20'); // her own organisation, created on first sign-in
    await post(t, own, '/dashboard/api-keys', { csrf: own.csrf, name: 'erin-own-key' });
    await inviteAndJoin(t, alice, erin, 'viewer');

    const browser = newBrowser('203.0.113.21');
    await askForLink(t, browser, erin);
    expect((await get(t, browser, pathOf(lastSignInLink(t, erin)))).headers.location).toBe('/dashboard');
    const landing = await get(t, browser, '/dashboard');
    expect(landing.statusCode).toBe(303);
    expect(landing.headers.location).toBe('/dashboard/organisations');
    expect((await get(t, browser, '/dashboard/api-keys')).headers.location).toBe('/dashboard/organisations');

    const picker = await get(t, browser, '/dashboard/organisations');
    expect(picker.statusCode).toBe(200);
    expect(picker.body).toContain(`<strong>${erin}</strong> <span class="muted">owner</span>`);
    expect(picker.body).toContain(`<strong>${ALICE}</strong> <span class="muted">viewer</span>`);
    expect(picker.body).toContain('You belong to 2 organisations.');
    const csrf = csrfOf(picker.body);

    const own_id = await accountIdOf(erin);
    expect((await post(t, browser, '/dashboard/organisations/switch', { csrf, account: own_id })).statusCode).toBe(303);
    expect((await get(t, browser, '/dashboard/api-keys')).body).toContain('erin-own-key');

    expect(
      (await post(t, browser, '/dashboard/organisations/switch', { csrf, account: await accountIdOf(ALICE) })).statusCode,
    ).toBe(303);
    const inAlice = await get(t, browser, '/dashboard/api-keys');
    expect(inAlice.body).not.toContain('erin-own-key');
    expect(inAlice.body).toContain('id="viewer-note"');

    // An organisation she is not a member of, or nonsense: 404, and the session stays where it was.
    const strangerEmail = unique('stranger');
    const stranger = await signIn(t, strangerEmail, '203.0.113.22');
    // One organisation is said as one, not as "more than one".
    const single = await get(t, stranger, '/dashboard/organisations');
    expect(single.body).toContain('You belong to one organisation.');
    expect(single.body).not.toContain('more than one');
    const strangerId = await accountIdOf(strangerEmail);
    expect((await post(t, browser, '/dashboard/organisations/switch', { csrf, account: strangerId })).statusCode).toBe(404);
    expect((await post(t, browser, '/dashboard/organisations/switch', { csrf, account: 'x'.repeat(500) })).statusCode).toBe(404);
    expect((await get(t, browser, '/dashboard/api-keys')).body).toContain('id="viewer-note"');
    expect(stranger.cookies.has('vn_session')).toBe(true);
  });
});

describe('what each role sees', () => {
  it('shows owners members management and the audit log, admins the member list, viewers neither', async () => {
    const admin = await inviteAndJoin(t, alice, unique('admin'), 'admin');
    const viewer = await inviteAndJoin(t, alice, unique('viewer'), 'viewer');

    const ownerPage = await get(t, alice, '/dashboard/members');
    expect(ownerPage.body).toContain('href="/dashboard/audit"');
    expect(ownerPage.body).toContain('action="/dashboard/members/invite"');
    expect(ownerPage.body).toContain('action="/dashboard/members/role"');

    const adminPage = await get(t, admin, '/dashboard/members');
    expect(adminPage.statusCode).toBe(200);
    expect(adminPage.body).toContain(`data-member="${ALICE}"`);
    expect(adminPage.body).not.toContain('action="/dashboard/members/invite"');
    expect(adminPage.body).not.toContain('action="/dashboard/members/role"');
    expect(adminPage.body).not.toContain('href="/dashboard/audit"');
    expect((await get(t, admin, '/dashboard/audit')).statusCode).toBe(403);
    expect((await get(t, admin, '/dashboard/api-keys')).body).toContain('action="/dashboard/api-keys"');

    const viewerKeys = await get(t, viewer, '/dashboard/api-keys');
    expect(viewerKeys.statusCode).toBe(200);
    expect(viewerKeys.body).not.toContain('href="/dashboard/members"');
    expect(viewerKeys.body).toContain('id="viewer-note"');
    expect((await get(t, viewer, '/dashboard/members')).statusCode).toBe(403);
    expect((await get(t, viewer, '/dashboard/audit')).statusCode).toBe(403);
    for (const page of ['/dashboard', '/dashboard/api-keys', '/dashboard/webhooks', '/dashboard/profiles']) {
      expect((await get(t, viewer, page)).statusCode).toBe(200);
    }
  });
});

describe('the last owner', () => {
  it('cannot be demoted or removed; with a second owner either can step down', async () => {
    const owner = await signIn(t, unique('solo'), '203.0.113.30');
    const ownerEmail = /<span id="signed-in-as">([^<]+)</.exec((await get(t, owner, '/dashboard')).body)?.[1] as string;
    const demote = await post(t, owner, '/dashboard/members/role', { csrf: owner.csrf, email: ownerEmail, role: 'admin' });
    expect(demote.statusCode).toBe(409);
    expect(demote.body).toContain('only owner cannot be demoted');
    const remove = await post(t, owner, '/dashboard/members/remove', { csrf: owner.csrf, email: ownerEmail });
    expect(remove.statusCode).toBe(409);
    expect(remove.body).toContain('only owner cannot be removed');

    const second = unique('second');
    const secondBrowser = await inviteAndJoin(t, owner, second, 'owner');
    // Both owners demote each other at once: exactly one wins, one owner remains.
    const [a, b] = await Promise.all([
      post(t, owner, '/dashboard/members/role', { csrf: owner.csrf, email: second, role: 'viewer' }),
      post(t, secondBrowser, '/dashboard/members/role', { csrf: secondBrowser.csrf, email: ownerEmail, role: 'viewer' }),
    ]);
    // The loser is refused either as the last owner (409) or, when the winner's change committed
    // before its request was authorised, as a viewer who may not change roles (403).
    const [won, lost] = [a.statusCode, b.statusCode].sort();
    expect(won).toBe(303);
    expect([403, 409]).toContain(lost);
    const owners = await t.deps.db.kysely
      .selectFrom('account_members')
      .select('email')
      .where('account_id', '=', await accountIdOf(ownerEmail))
      .where('role', '=', 'owner')
      .execute();
    expect(owners).toHaveLength(1);
  });

  it('removing a member ends their access at their next request', async () => {
    const gone = unique('gone');
    const browser = await inviteAndJoin(t, alice, gone, 'admin');
    expect((await post(t, alice, '/dashboard/members/remove', { csrf: alice.csrf, email: gone })).statusCode).toBe(303);
    expect((await get(t, browser, '/dashboard/api-keys')).headers.location).toBe('/dashboard/organisations');
    expect((await post(t, browser, '/dashboard/api-keys', { csrf: browser.csrf, name: 'x' })).headers.location).toBe(
      '/dashboard/organisations',
    );
    expect((await get(t, browser, '/dashboard/organisations')).body).toContain('is not a member of any organisation');
    expect((await post(t, alice, '/dashboard/members/remove', { csrf: alice.csrf, email: gone })).statusCode).toBe(404);
  });
});

describe('one organisation never sees another’s', () => {
  it('keeps members, invitations, keys, webhooks and the audit log apart', async () => {
    const bob = await signIn(t, unique('bob'), '203.0.113.40');
    const aliceKey = await post(t, alice, '/dashboard/api-keys', { csrf: alice.csrf, name: 'alice-secret-key' });
    expect(aliceKey.statusCode).toBe(201);
    const keyId = (
      await t.deps.db.kysely.selectFrom('api_keys').select('id').where('name', '=', 'alice-secret-key').executeTakeFirstOrThrow()
    ).id;
    const { key } = await t.newAccount(ALICE); // the organisation's key, for its webhook
    const hook = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    });
    expect(hook.statusCode).toBe(201);
    const webhookId = hook.json().id as string;
    const invitee = unique('pending');
    await post(t, alice, '/dashboard/members/invite', { csrf: alice.csrf, email: invitee, role: 'viewer' });
    const invitationId = (
      await t.deps.db.kysely.selectFrom('account_invitations').select('id').where('email', '=', invitee).executeTakeFirstOrThrow()
    ).id;

    const members = await get(t, bob, '/dashboard/members');
    expect(members.body).not.toContain(ALICE);
    expect(members.body).not.toContain(invitee);
    expect((await get(t, bob, '/dashboard/api-keys')).body).not.toContain('alice-secret-key');
    expect((await get(t, bob, '/dashboard/webhooks')).body).not.toContain('127.0.0.1:9');
    expect((await get(t, bob, `/dashboard/webhooks/${webhookId}`)).statusCode).toBe(404);
    expect((await post(t, bob, `/dashboard/webhooks/${webhookId}/enable`, { csrf: bob.csrf })).statusCode).toBe(404);
    expect((await post(t, bob, `/dashboard/api-keys/${keyId}/revoke`, { csrf: bob.csrf })).statusCode).toBe(404);
    expect((await post(t, bob, '/dashboard/members/role', { csrf: bob.csrf, email: ALICE, role: 'viewer' })).statusCode).toBe(
      404,
    );
    expect((await post(t, bob, '/dashboard/members/remove', { csrf: bob.csrf, email: ALICE })).statusCode).toBe(404);
    expect((await post(t, bob, `/dashboard/members/invitations/${invitationId}/withdraw`, { csrf: bob.csrf })).statusCode).toBe(
      404,
    );
    const audit = await get(t, bob, '/dashboard/audit');
    expect(audit.statusCode).toBe(200);
    expect(audit.body).not.toContain('api_key.created');
    expect(audit.body).not.toContain(ALICE);

    // Nothing of Alice's changed.
    const aliceKeys = await get(t, alice, '/dashboard/api-keys');
    expect(aliceKeys.body).toContain('alice-secret-key');
    expect((await get(t, newBrowser(), pathOf(lastInvitationLink(t, invitee)))).statusCode).toBe(200);
    expect((await get(t, alice, '/dashboard/audit')).body).toContain('api_key.created');
  });
});
