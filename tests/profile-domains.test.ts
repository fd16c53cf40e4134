/**
 * Proving the domain of a claimed agent profile: the owner publishes a token at
 * `<origin>/.well-known/voicename-verification.txt` (here a real server on loopback, reachable
 * because WEBHOOK_ALLOW_PRIVATE_URLS is on, as in local development), the service fetches it
 * and only then shows "Verified: <domain>". A wrong or missing file verifies nothing; other
 * accounts cannot start or finish it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { publishEntity, validBody } from './helpers/entities.js';

let t: TestApp;
let owner: Browserish & { csrf: string };
let site: http.Server;
let origin: string;
let published = 'nothing here';
const requests: string[] = [];

beforeAll(async () => {
  site = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url === '/.well-known/voicename-verification.txt')
      res.writeHead(200, { 'content-type': 'text/plain' }).end(published);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  t = await createTestApp({ env: { SITE_URL: 'http://agents.localhost:3000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await signIn(t, 'domain-owner@example.com', '203.0.113.61');
});
afterAll(async () => {
  await t.close();
  await new Promise<void>((resolve) => site.close(() => resolve()));
});

describe('domain proof for a claimed profile', () => {
  it('shows "Verified: <domain>" only after the token is found at the domain', async () => {
    const { paid } = await publishEntity(t, validBody({ name: `Orbit Concierge ${Date.now()}`, source_url: `${origin}/` }));
    const entity = paid.json().entity;
    const slug = new URL(entity.profile_url).pathname.split('/')[2] as string;
    const claimed = await post(t, owner, '/dashboard/profiles/claim', {
      csrf: owner.csrf,
      profile: entity.profile_url,
      deletion_token: paid.json().receipt.deletion_token,
    });
    expect(claimed.statusCode).toBe(303);
    expect((await get(t, owner, '/dashboard/profiles')).body).toContain(`Verify 127.0.0.1…`);

    const page = await get(t, owner, `/dashboard/profiles/${slug}/domain`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`value="${origin}/.well-known/voicename-verification.txt"`);
    const token = /id="domain-token" readonly value="([^"]+)"/.exec(page.body)?.[1] as string;
    expect(token).toMatch(/^voicename-verification=[A-Za-z0-9_-]{32}$/);
    // The same token on every visit.
    expect((await get(t, owner, `/dashboard/profiles/${slug}/domain`)).body).toContain(`value="${token}"`);

    published = 'voicename-verification=somebody-elses-token';
    const wrong = await post(t, owner, `/dashboard/profiles/${slug}/domain`, { csrf: owner.csrf });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('does not contain the line');
    expect((await t.app.inject({ url: `/e/${slug}` })).body).toContain('Claimed by its publisher');

    published = `# other lines are fine\n${token}\n`;
    const right = await post(t, owner, `/dashboard/profiles/${slug}/domain`, { csrf: owner.csrf });
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/dashboard/profiles?notice=domain-verified');
    expect(requests.filter((url) => url === '/.well-known/voicename-verification.txt')).toHaveLength(2);

    const profile = await t.app.inject({ url: `/e/${slug}` });
    expect(profile.body).toMatch(/<span class="badge verified" id="claim-badge" title="[^"]*">✓ Verified: 127\.0\.0\.1<\/span>/);
    const machine = await t.app.inject({ url: `/e/${slug}/.well-known/service.json` });
    expect(machine.json().claim.verified_domain).toBe('127.0.0.1');
    expect((await get(t, owner, '/dashboard/profiles')).body).toContain('✓ 127.0.0.1');
  });

  it('is not open to another account, nor to a profile without a homepage', async () => {
    const { paid } = await publishEntity(t, validBody({ source_url: `${origin}/` }));
    const entity = paid.json().entity;
    const slug = new URL(entity.profile_url).pathname.split('/')[2] as string;
    await post(t, owner, '/dashboard/profiles/claim', {
      csrf: owner.csrf,
      profile: entity.profile_url,
      deletion_token: paid.json().receipt.deletion_token,
    });
    const stranger = await signIn(t, 'domain-stranger@example.com', '203.0.113.62');
    expect((await get(t, stranger, `/dashboard/profiles/${slug}/domain`)).statusCode).toBe(404);
    expect((await post(t, stranger, `/dashboard/profiles/${slug}/domain`, { csrf: stranger.csrf })).statusCode).toBe(404);

    const bare = await publishEntity(t, validBody());
    const bareEntity = bare.paid.json().entity;
    const bareSlug = new URL(bareEntity.profile_url).pathname.split('/')[2] as string;
    await post(t, owner, '/dashboard/profiles/claim', {
      csrf: owner.csrf,
      profile: bareEntity.profile_url,
      deletion_token: bare.paid.json().receipt.deletion_token,
    });
    expect((await get(t, owner, '/dashboard/profiles')).body).toContain('No homepage');
    expect((await get(t, owner, `/dashboard/profiles/${bareSlug}/domain`)).statusCode).toBe(404);
  });
});
