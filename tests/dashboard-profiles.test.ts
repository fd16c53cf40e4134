/**
 * Claiming agent profiles from the dashboard: an entity published through the real paid flow
 * (sandbox processor) goes from unclaimed/unverified to claimed/verified when a signed-in human
 * gives the receipt's deletion token; the public profile then shows the badge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimEntity, slugFromProfileInput } from '../src/features/profile-ownership/service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { accountIdOf } from './helpers/webhooks.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';

let t: TestApp;
let owner: Browserish & { csrf: string };
let other: Browserish & { csrf: string };

beforeAll(async () => {
  t = await createTestApp({ overrides: fakeSpeech() });
  owner = await signIn(t, 'owner@example.com', '203.0.113.21');
  other = await signIn(t, 'other@example.com', '203.0.113.22');
});
afterAll(() => t.close());

async function publish() {
  const { paid } = await publishEntity(t, validBody());
  const body = paid.json();
  return {
    slug: new URL(body.entity.profile_url).pathname.split('/').pop() as string,
    url: body.entity.profile_url as string,
    token: body.receipt.deletion_token as string,
  };
}

const claim = (who: Browserish & { csrf: string }, profile: string, token: string) =>
  post(t, who, '/dashboard/profiles/claim', { csrf: who.csrf, profile, deletion_token: token });

const entityRow = (slug: string) =>
  t.deps.db.kysely.selectFrom('entities').selectAll().where('slug', '=', slug).executeTakeFirstOrThrow();

describe('claiming an agent profile', () => {
  it('claims with the profile URL and the receipt token: claimed, verified, badge on the profile', async () => {
    const entity = await publish();
    const before = await t.app.inject({ url: `/e/${entity.slug}` });
    expect(before.body).toContain('Unclaimed · Unverified');

    const res = await claim(owner, entity.url, entity.token);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/profiles?notice=profile-claimed');
    const row = await entityRow(entity.slug);
    expect(row).toMatchObject({
      claim_state: 'claimed',
      verification_state: 'verified',
      claimed_by_account_id: await accountIdOf(t, 'owner@example.com'),
    });
    expect(row.claimed_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const list = await get(t, owner, res.headers.location as string);
    expect(list.body).toContain('The profile is claimed by your account');
    expect(list.body).toContain(`data-slug="${entity.slug}"`);
    expect((await get(t, owner, '/dashboard')).body).toMatch(/id="claimed-profiles">1</);

    const page = await t.app.inject({ url: `/e/${entity.slug}` });
    expect(page.body).toContain('Claimed by its publisher');
    expect(page.body).not.toContain('Unclaimed');
    // The claim proves control of the profile, not of the operator or homepage it names.
    expect(page.body).not.toMatch(/Verified|✓/);
    const machine = await t.app.inject({ url: `/e/${entity.slug}/.well-known/service.json` });
    expect(machine.json().claim).toEqual({
      state: 'claimed',
      verification: 'verified',
      claimed: true,
      verified: true,
      claimed_at: row.claimed_at,
      // No domain proved: nothing vouches for the operator or homepage.
      verified_domain: null,
    });
  });

  it('accepts the bare slug and a token in upper case with spaces; claiming again is a no-op', async () => {
    const entity = await publish();
    expect((await claim(owner, ` ${entity.slug} `, ` ${entity.token.toUpperCase()} `)).statusCode).toBe(303);
    const first = await entityRow(entity.slug);
    expect((await claim(owner, entity.slug, entity.token)).statusCode).toBe(303);
    expect((await entityRow(entity.slug)).claimed_at).toBe(first.claimed_at);
  });

  it('refuses a wrong token (403) and leaves the profile unclaimed', async () => {
    const entity = await publish();
    const res = await claim(owner, entity.url, '00000000-0000-4000-8000-000000000000');
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('not the deletion token');
    expect(res.body).toContain(`value="${entity.url}"`); // the form keeps the URL…
    expect(res.body).not.toContain('00000000-0000-4000-8000-000000000000'); // …but not the token
    expect((await entityRow(entity.slug)).claim_state).toBe('unclaimed');
  });

  it('refuses a profile another account has claimed (409), even with the right token', async () => {
    const entity = await publish();
    expect((await claim(owner, entity.url, entity.token)).statusCode).toBe(303);
    const res = await claim(other, entity.url, entity.token);
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('already claimed by another account');
    expect((await get(t, other, '/dashboard/profiles')).body).not.toContain(entity.slug);
  });

  it('refuses unknown and malformed profiles, and forms without the token', async () => {
    expect((await claim(owner, 'https://example.com/e/no-such-agent-here', 'x')).statusCode).toBe(404);
    expect((await claim(owner, 'not a slug!', 'x')).statusCode).toBe(400);
    expect((await claim(owner, 'some-agent', '')).statusCode).toBe(400);
    const entity = await publish();
    expect(
      (await post(t, owner, '/dashboard/profiles/claim', { profile: entity.slug, deletion_token: entity.token })).statusCode,
    ).toBe(403);
    expect((await entityRow(entity.slug)).claim_state).toBe('unclaimed');
  });

  it('lets exactly one of two racing accounts claim a profile', async () => {
    const entity = await publish();
    const a = await accountIdOf(t, 'owner@example.com');
    const b = await accountIdOf(t, 'other@example.com');
    const results = await Promise.allSettled([
      claimEntity(t.deps, a, entity.slug, entity.token),
      claimEntity(t.deps, b, entity.slug, entity.token),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason.code).toBe('entity_already_claimed');
  });

  it('cannot claim a deleted profile', async () => {
    const entity = await publish();
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/entities/${entity.slug}`,
      headers: { 'deletion-token': entity.token },
    });
    expect(deleted.statusCode).toBe(200);
    expect((await claim(owner, entity.slug, entity.token)).statusCode).toBe(404);
  });
});

describe('slugFromProfileInput', () => {
  it.each([
    ['https://voicename.example/e/zoe-concierge', 'zoe-concierge'],
    ['https://voicename.example/e/zoe-concierge/', 'zoe-concierge'],
    ['https://voicename.example/e/zoe-concierge/.well-known/service.json', 'zoe-concierge'],
    ['/e/zoe-concierge?x=1', 'zoe-concierge'],
    ['zoe-concierge', 'zoe-concierge'],
    ['Zoe-Concierge', 'zoe-concierge'],
    ['zoe concierge', null],
    ['', null],
    ['https://voicename.example/e/%E0%A4%A', null],
  ])('%s → %s', (input, slug) => {
    expect(slugFromProfileInput(input)).toBe(slug);
  });

  it('lets the owner switch a claimed profile between public and unlisted, and nobody else', async () => {
    const entity = await publish();
    await claim(owner, entity.slug, entity.token);
    const setVisibility = (who: Browserish & { csrf: string }, visibility: string) =>
      post(t, who, `/dashboard/profiles/${entity.slug}/visibility`, { csrf: who.csrf, visibility });

    const res = await setVisibility(owner, 'unlisted');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/profiles?notice=profile-visibility');
    expect((await entityRow(entity.slug)).visibility).toBe('unlisted');
    const page = await t.app.inject({ url: `/e/${entity.slug}` });
    expect(page.body).toContain('<meta name="robots" content="noindex');
    expect((await t.app.inject({ url: `/e/${entity.slug}/.well-known/service.json` })).json().visibility).toBe('unlisted');

    expect((await setVisibility(other, 'public')).statusCode).toBe(404);
    expect((await setVisibility(owner, 'secret')).statusCode).toBe(400);
    expect((await post(t, owner, `/dashboard/profiles/${entity.slug}/visibility`, { visibility: 'public' })).statusCode).toBe(
      403,
    );
    expect((await entityRow(entity.slug)).visibility).toBe('unlisted');

    expect((await setVisibility(owner, 'public')).statusCode).toBe(303);
    expect((await t.app.inject({ url: `/e/${entity.slug}` })).body).not.toContain('noindex');
  });

  it('never vouches for a brand the claimant has not proved: "Siri Official, operated by Apple Inc." stays the publisher\'s word', async () => {
    const { paid } = await publishEntity(
      t,
      validBody({ name: `Siri Official ${Date.now()}`, operator: 'Apple Inc.', source_url: 'https://apple.com/' }),
    );
    const entity = paid.json().entity;
    const slug = new URL(entity.profile_url).pathname.split('/')[2] as string;
    expect((await claim(owner, entity.profile_url, paid.json().receipt.deletion_token)).statusCode).toBe(303);
    const page = await t.app.inject({ url: `/e/${slug}` });
    expect(page.body).toMatch(/<span class="badge claimed" id="claim-badge" title="[^"]*">Claimed by its publisher<\/span>/);
    expect(page.body).toContain(
      'The operator and homepage shown are the publisher’s own statements; voicename has not checked them.',
    );
    expect(page.body).not.toMatch(/Verified|✓/);
  });
});
