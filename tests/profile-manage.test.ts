/**
 * The owner of a claimed agent profile manages it from the dashboard: text and links (checked by
 * the generation request's own rules), new audio in another voice (the old file goes), deletion
 * (410 afterwards). Nobody else can.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { publishEntity, validBody } from './helpers/entities.js';

let t: TestApp;
let owner: Browserish & { csrf: string };

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: 'http://agents.localhost:3000' } });
  owner = await signIn(t, 'profile-owner@example.com', '203.0.113.71');
});
afterAll(() => t.close());

async function claimedProfile() {
  const { paid } = await publishEntity(t, validBody({ voice_style: 'neutral' }));
  const entity = paid.json().entity;
  const slug = new URL(entity.profile_url).pathname.split('/')[2] as string;
  const res = await post(t, owner, '/dashboard/profiles/claim', {
    csrf: owner.csrf,
    profile: entity.profile_url,
    deletion_token: paid.json().receipt.deletion_token,
  });
  expect(res.statusCode).toBe(303);
  return { slug, base: `/dashboard/profiles/${slug}` };
}

describe('managing a claimed profile', () => {
  it('saves the description, intro, avatar and homepage by the request rules', async () => {
    const { slug, base } = await claimedProfile();
    expect((await get(t, owner, '/dashboard/profiles')).body).toContain(`href="${base}/manage"`);
    expect((await get(t, owner, `${base}/manage`)).statusCode).toBe(200);
    const saved = await post(t, owner, `${base}/details`, {
      csrf: owner.csrf,
      description: 'Books meetings for small teams, in four languages.',
      intro: 'Say hello to Orbit.',
      avatar_url: '/favicon.svg',
      source_url: 'https://orbit.example.com/',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe('/dashboard/profiles?notice=profile-updated');
    const machine = (await t.app.inject({ url: `/e/${slug}/.well-known/service.json` })).json();
    expect(machine).toMatchObject({
      description: 'Books meetings for small teams, in four languages.',
      intro: 'Say hello to Orbit.',
      source_url: 'https://orbit.example.com/',
    });

    const short = await post(t, owner, `${base}/details`, { csrf: owner.csrf, description: 'Too short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('id="details-error"');
    expect(short.body).toContain('>Too short</textarea>');
    const privateAvatar = await post(t, owner, `${base}/details`, {
      csrf: owner.csrf,
      description: 'Books meetings for small teams.',
      avatar_url: 'https://10.1.2.3/me.png',
    });
    expect(privateAvatar.statusCode).toBe(400);
    expect((await t.app.inject({ url: `/e/${slug}/.well-known/service.json` })).json().intro).toBe('Say hello to Orbit.');
  });

  it('speaks the name again in another voice and deletes the old audio', async () => {
    const { slug, base } = await claimedProfile();
    const before = await t.app.inject({ url: `/e/${slug}/name.mp3` });
    const row = await t.deps.db.kysely.selectFrom('entities').selectAll().where('slug', '=', slug).executeTakeFirstOrThrow();
    const res = await post(t, owner, `${base}/voice`, { csrf: owner.csrf, voice_style: 'whisper' });
    expect(res.statusCode).toBe(303);
    const after = await t.app.inject({ url: `/e/${slug}/name.mp3` });
    expect(after.statusCode).toBe(200);
    expect(after.rawPayload.equals(before.rawPayload)).toBe(false);
    expect(await t.deps.blobs.list(`entities/${row.id}/`)).toHaveLength(1);
    expect((await t.app.inject({ url: `/e/${slug}/.well-known/service.json` })).json().voice_style).toBe('whisper');
    expect((await post(t, owner, `${base}/voice`, { csrf: owner.csrf, voice_style: 'yodel' })).statusCode).toBe(400);
  });

  it('deletes the profile: its addresses answer 410', async () => {
    const { slug, base } = await claimedProfile();
    const res = await post(t, owner, `${base}/delete`, { csrf: owner.csrf });
    expect(res.headers.location).toBe('/dashboard/profiles?notice=profile-deleted');
    expect((await t.app.inject({ url: `/e/${slug}` })).statusCode).toBe(410);
    expect((await get(t, owner, `${base}/manage`)).statusCode).toBe(404);
  });

  it('is 404 to another account', async () => {
    const { base } = await claimedProfile();
    const stranger = await signIn(t, 'profile-stranger@example.com', '203.0.113.72');
    expect((await get(t, stranger, `${base}/manage`)).statusCode).toBe(404);
    for (const action of ['details', 'voice', 'delete']) {
      const res = await post(t, stranger, `${base}/${action}`, { csrf: stranger.csrf, description: 'Taken over by a stranger.' });
      expect(res.statusCode, action).toBe(404);
    }
  });
});
