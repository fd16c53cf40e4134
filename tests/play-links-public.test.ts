import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskBlobStore } from '../src/blobs/disk.js';
import { invalidatePlayLinksOfUser } from '../src/features/play-links/invalidation.js';
import { approveGuide } from '../src/features/pronunciation/service.js';
import { flushPlayCounts } from '../src/features/play-links/play-counts.js';
import { createTestApp, startTestServer, type TestApp } from './helpers/app.js';
import { decodeAudio } from './helpers/audio.js';
import { addRecordedUser, addRecording, addUser, createCollection, spokenMp3 } from './helpers/play-link-fixtures.js';

let t: TestApp;
let key: string;
let collectionId: string;
const BASE = 'http://localhost:3000';

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  collectionId = await createCollection(t, key);
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.request({ method: 'GET', url, headers });
const localPath = (location: string) => location.replace(BASE, '');
const storedCount = async (token: string) =>
  (await t.deps.db.kysely.selectFrom('play_links').select('play_count').where('token', '=', token).executeTakeFirstOrThrow())
    .play_count;

describe('/p/<token> player page', () => {
  it('shows the name, phonetic spelling, duration, share fields and link-preview tags; noindex by default', async () => {
    const { token } = await addRecordedUser(t, collectionId, { displayName: 'Siobhan O’Sullivan', phoneticSpelling: 'shi-VAWN' });
    const res = await get(`/p/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['x-robots-tag']).toBe('noindex');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    const page = res.body;
    const link = `${BASE}/p/${token}`;
    expect(page).toContain('<h1 id="name" dir="auto">Siobhan O’Sullivan</h1>');
    expect(page).toContain('shi-VAWN');
    expect(page).toContain(`<audio id="audio" controls preload="none" src="${link}.mp3"`);
    expect(page).toContain('<meta name="robots" content="noindex">');
    expect(page).toContain(`<meta property="og:url" content="${link}">`);
    expect(page).toContain(`<meta property="og:audio" content="${link}.mp3">`);
    expect(page).toContain('<meta name="twitter:card" content="summary_large_image">');
    expect(page).toContain(`<meta name="twitter:player" content="${link}/embed">`);
    expect(page).toContain('<meta name="twitter:player:width" content="200">');
    expect(page).toContain('<meta name="twitter:player:height" content="40">');
    expect(page).toContain(
      `<link rel="alternate" type="application/json+oembed" href="${BASE}/oembed?url=${encodeURIComponent(link)}&amp;format=json"`,
    );
    expect(page).toContain(`value="${link}"`);
    expect(page).toContain(`&lt;iframe src=&quot;${link}/embed&quot; width=&quot;200&quot;`);
    expect(page).toContain(`src="${link}/qr.svg"`);
    expect(page).toMatch(/<time datetime="PT\d+S">\d+ seconds?<\/time>/);
  });

  it('escapes everything a customer controls', async () => {
    const evil = `<script>alert("x")</script>' onload="x`;
    const { token } = await addRecordedUser(t, collectionId, {
      displayName: evil,
      phoneticSpelling: '<img src=x onerror=alert(1)>',
    });
    for (const url of [`/p/${token}`, `/p/${token}/embed`]) {
      const body = (await get(url)).body;
      expect(body).not.toContain('<script>alert');
      expect(body).not.toContain('<img src=x');
      expect(body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onload=&quot;x');
    }
    expect((await get(`/p/${token}/meta`)).json().display_name).toBe(evil);
  });

  it('lets a collection opt in to indexing', async () => {
    const indexed = await createCollection(t, key, 'Public faculty');
    const { token } = await addRecordedUser(t, indexed);
    await t.request({
      method: 'PATCH',
      url: `/v1/collections/${indexed}/play-link-settings`,
      key,
      json: { allow_indexing: true },
    });
    const res = await get(`/p/${token}`);
    expect(res.headers['x-robots-tag']).toBeUndefined();
    expect(res.body).not.toContain('noindex');
  });
});

describe('/p/<token>.mp3 and the app-served audio', () => {
  it('302s to an immutable, content-addressed URL that serves the MP3 with Range and ETag', async () => {
    const { token, userId } = await addRecordedUser(t, collectionId);
    const redirect = await get(`/p/${token}.mp3`);
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers['cache-control']).toBe('no-store');
    const location = String(redirect.headers.location);
    expect(location).toMatch(new RegExp(`^${BASE}/p/${token}/audio/[0-9a-f]{32}\\.mp3$`));

    const { mp3 } = spokenMp3("Siobhan O'Sullivan");
    const full = await get(localPath(location));
    expect(full.statusCode).toBe(200);
    expect(full.headers['content-type']).toBe('audio/mpeg');
    expect(full.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(full.headers['accept-ranges']).toBe('bytes');
    expect(Number(full.headers['content-length'])).toBe(mp3.length);
    expect(full.rawPayload.equals(mp3)).toBe(true);
    // The bytes decode as MP3 audio.
    expect(decodeAudio(full.rawPayload).codec).toBe('mp3');

    const part = await get(localPath(location), { range: 'bytes=0-99' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-99/${mp3.length}`);
    expect(part.rawPayload.equals(mp3.subarray(0, 100))).toBe(true);
    const tail = await get(localPath(location), { range: 'bytes=-10' });
    expect(tail.rawPayload.equals(mp3.subarray(mp3.length - 10))).toBe(true);
    // A suffix longer than the file is the whole file (RFC 9110), as on /e/<slug>/name.mp3.
    const longSuffix = await get(localPath(location), { range: `bytes=-${mp3.length + 500}` });
    expect(longSuffix.statusCode).toBe(206);
    expect(longSuffix.headers['content-range']).toBe(`bytes 0-${mp3.length - 1}/${mp3.length}`);
    expect(longSuffix.rawPayload.equals(mp3)).toBe(true);
    const open = await get(localPath(location), { range: `bytes=${mp3.length - 5}-` });
    expect(open.headers['content-range']).toBe(`bytes ${mp3.length - 5}-${mp3.length - 1}/${mp3.length}`);
    const beyond = await get(localPath(location), { range: `bytes=${mp3.length}-` });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${mp3.length}`);

    const etag = String(full.headers.etag);
    expect((await get(localPath(location), { 'if-none-match': etag })).statusCode).toBe(304);
    // If-Range with a different validator: the whole (current) body.
    expect((await get(localPath(location), { range: 'bytes=0-9', 'if-range': '"other"' })).statusCode).toBe(200);

    // A re-record changes the audio URL; the old one is gone rather than stale.
    await addRecording(t, userId, { text: 'someone else entirely' });
    invalidatePlayLinksOfUser(t.deps, userId);
    const moved = String((await get(`/p/${token}.mp3`)).headers.location);
    expect(moved).not.toBe(location);
    expect((await get(localPath(location))).statusCode).toBe(404);
    expect((await get(localPath(moved))).rawPayload.equals(spokenMp3('someone else entirely').mp3)).toBe(true);
  });

  it('redirects to AUDIO_PUBLIC_BASE_URL or to a URL the blob store signs', async () => {
    const cdn = await createTestApp({ env: { AUDIO_PUBLIC_BASE_URL: 'https://cdn.example.com/audio/' } });
    // A store that signs URLs the way the S3 adapter's presignedUrl(key, ttlSeconds) does.
    const signing = Object.assign(new DiskBlobStore(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vn-blobs-')), 'blobs')), {
      presignedUrl: async (blobKey: string, ttlSeconds: number) =>
        `https://bucket.s3.example.com/${blobKey}?X-Amz-Expires=${ttlSeconds}&X-Amz-Signature=abc`,
    });
    const s3 = await createTestApp({ overrides: { blobs: signing } });
    try {
      for (const [app, expected] of [
        [cdn, (blobKey: string) => `https://cdn.example.com/audio/${blobKey}`],
        [s3, (blobKey: string) => `https://bucket.s3.example.com/${blobKey}?X-Amz-Expires=3600&X-Amz-Signature=abc`],
      ] as const) {
        const { key: k } = await app.newAccount();
        const { token, userId } = await addRecordedUser(app, await createCollection(app, k));
        const blobKey = (
          await app.deps.db.kysely
            .selectFrom('recordings')
            .select('blob_key')
            .where('user_id', '=', userId)
            .executeTakeFirstOrThrow()
        ).blob_key;
        const res = await app.request({ method: 'GET', url: `/p/${token}.mp3` });
        expect(res.statusCode).toBe(302);
        expect(res.headers.location).toBe(expected(blobKey));
        const page = await app.request({ method: 'GET', url: `/p/${token}` });
        expect(page.headers['content-security-policy']).toContain(new URL(expected(blobKey)).origin);
      }
    } finally {
      await cdn.close();
      await s3.close();
    }
  });
});

describe('unknown and removed tokens', () => {
  const surfaces = (token: string) => [
    `/p/${token}`,
    `/p/${token}.mp3`,
    `/p/${token}/embed`,
    `/p/${token}/meta`,
    `/p/${token}/qr.svg`,
  ];
  const fingerprint = async (token: string) =>
    Promise.all(
      surfaces(token).map(async (url) => {
        const res = await get(url);
        const body = res.body.replace(/"request_id":"[^"]+"/, '');
        return { status: res.statusCode, type: res.headers['content-type'], body, cache: res.headers['cache-control'] };
      }),
    );

  it('look the same (404) whether the token never existed, was rotated, or its recording, user or collection is gone', async () => {
    const unknown = await fingerprint('AAAAAAAAAAAAAAAA');
    for (const item of unknown) expect(item.status).toBe(404);
    expect(await fingerprint('bad!token')).toEqual(unknown);

    // Warm the cache first each time: removal must win over a cached resolution.
    const warm = async (token: string) => expect((await get(`/p/${token}/meta`)).statusCode).toBe(200);

    const rotated = await addRecordedUser(t, collectionId);
    await warm(rotated.token);
    await t.request({ method: 'POST', url: `/v1/collections/${collectionId}/users/${rotated.userId}/play-link/rotate`, key });
    expect(await fingerprint(rotated.token)).toEqual(unknown);

    const noRecording = await addRecordedUser(t, collectionId);
    await warm(noRecording.token);
    await t.deps.db.kysely.deleteFrom('recordings').where('user_id', '=', noRecording.userId).execute();
    invalidatePlayLinksOfUser(t.deps, noRecording.userId);
    expect(await fingerprint(noRecording.token)).toEqual(unknown);

    const deletedUser = await addRecordedUser(t, collectionId);
    await warm(deletedUser.token);
    await t.deps.db.kysely.deleteFrom('users').where('id', '=', deletedUser.userId).execute();
    invalidatePlayLinksOfUser(t.deps, deletedUser.userId);
    expect(await fingerprint(deletedUser.token)).toEqual(unknown);

    const archived = await createCollection(t, key, 'Archived');
    const inArchived = await addRecordedUser(t, archived);
    await t.request({ method: 'DELETE', url: `/v1/collections/${archived}`, key });
    expect(await fingerprint(inArchived.token)).toEqual(unknown);
  });

  it('a token that starts resolving again (recording restored) is not hidden by a cached 404', async () => {
    const userId = await addUser(t, collectionId);
    const token = await addRecording(t, userId);
    await t.deps.db.kysely.deleteFrom('recordings').where('user_id', '=', userId).execute();
    invalidatePlayLinksOfUser(t.deps, userId);
    expect((await get(`/p/${token}/meta`)).statusCode).toBe(404);
    await addRecording(t, userId);
    invalidatePlayLinksOfUser(t.deps, userId);
    expect((await get(`/p/${token}/meta`)).statusCode).toBe(200);
  });
});

describe('/p/<token>/meta', () => {
  it('has the play-link fields plus token, names, phonetic spelling, mime type, embed and oEmbed URLs and play count; CORS open', async () => {
    const { token, userId } = await addRecordedUser(t, collectionId, {
      displayName: 'Aoife Ní Bhriain',
      phoneticSpelling: 'EE-fa',
    });
    const res = await get(`/p/${token}/meta`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const api = (
      await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}/play-link`, key })
    ).json();
    const link = `${BASE}/p/${token}`;
    expect(res.json()).toEqual({
      ...api,
      token,
      preferred_name: null,
      pronouns: null,
      phonetic_spelling: 'EE-fa',
      audio_mime_type: 'audio/mpeg',
      embed_url: `${link}/embed`,
      oembed_url: `${BASE}/oembed?url=${encodeURIComponent(link)}&format=json`,
      play_count: 0,
      pronunciation: null,
    });
  });

  it("carries the name's guide (what it says and whether the person approved it, nothing of who wrote it or its audio), fresh after each change", async () => {
    const { token, userId } = await addRecordedUser(t, collectionId, { firstName: 'Siobhan', lastName: 'Walsh' });
    expect((await get(`/p/${token}/meta`)).json().pronunciation).toBeNull();
    const written = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${collectionId}/users/${userId}`,
      key,
      json: { pronunciation: { respelling: 'shiv-AWN WAWLSH', not_like: 'see-OH-ban' } },
    });
    expect(written.statusCode, written.body).toBe(200);
    // The cached link was dropped by the change: no wait for the cache's lifetime.
    const suggested = (await get(`/p/${token}/meta`)).json().pronunciation;
    expect(suggested).toEqual({
      respelling: 'shiv-AWN WAWLSH',
      ipa: written.json().pronunciation.ipa,
      not_like: 'see-OH-ban',
      language: 'en',
      approved: false,
    });
    expect(suggested.ipa).toMatch(/^ʃ/u);

    const { account_id } = await t.deps.db.kysely
      .selectFrom('collections')
      .select('account_id')
      .where('id', '=', collectionId)
      .executeTakeFirstOrThrow();
    await approveGuide(t.deps, { ...written.json(), account_id, recording_status: 'approved' });
    expect((await get(`/p/${token}/meta`)).json().pronunciation).toEqual({ ...suggested, approved: true });
  });
});

describe('play counts', () => {
  it('counts .mp3 plays in memory, shows them in /meta, and writes them in one batch', async () => {
    const { token } = await addRecordedUser(t, collectionId);
    const other = await addRecordedUser(t, collectionId);
    await flushPlayCounts(t.deps);
    for (let i = 0; i < 5; i++) await get(`/p/${token}.mp3`);
    await get(`/p/${token}.mp3`, { range: 'bytes=0-' }); // a browser starting playback: counts
    await get(`/p/${token}.mp3`, { range: 'bytes=5000-' }); // a seek: does not count
    await t.request({ method: 'HEAD', url: `/p/${token}.mp3` }); // a probe: does not count
    await get(`/p/${other.token}.mp3`);
    await get(`/p/${token}`); // viewing the page is not a play

    expect(await storedCount(token)).toBe(0); // no database write per request
    expect((await get(`/p/${token}/meta`)).json().play_count).toBe(6);

    expect(await flushPlayCounts(t.deps)).toBe(7);
    expect(await storedCount(token)).toBe(6);
    expect(await storedCount(other.token)).toBe(1);
    expect(await flushPlayCounts(t.deps)).toBe(0);
  });

  it('flushes pending counts when the app closes', async () => {
    const own = await createTestApp();
    const { key: k } = await own.newAccount();
    const { token } = await addRecordedUser(own, await createCollection(own, k));
    await own.request({ method: 'GET', url: `/p/${token}.mp3` });
    await own.app.close();
    const row = await own.deps.db.kysely
      .selectFrom('play_links')
      .select('play_count')
      .where('token', '=', token)
      .executeTakeFirstOrThrow();
    expect(row.play_count).toBe(1);
    await own.database.drop();
  });
});

describe('/p/<token>/embed', () => {
  it('may be framed anywhere, sets no cookie, and labels its controls', async () => {
    const { token } = await addRecordedUser(t, collectionId, { displayName: 'Zoë Quinn' });
    const res = await get(`/p/${token}/embed`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toContain('frame-ancestors *');
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.body).toContain('aria-label="Play pronunciation of Zoë Quinn"');
    expect(res.body).toContain(`<audio id="a" controls preload="none" src="${BASE}/p/${token}.mp3"`);
    expect(Buffer.byteLength(res.body)).toBeLessThan(2048);
  });
});

describe('/oembed', () => {
  it('answers a rich oEmbed document with the fields the oEmbed spec requires', async () => {
    const { token } = await addRecordedUser(t, collectionId, { displayName: 'Zoë Quinn' });
    const link = `${BASE}/p/${token}`;
    const res = await get(`/oembed?url=${encodeURIComponent(link)}&format=json`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const body = res.json();
    // oEmbed 1.0 §2.3.4: version and type always; rich needs html, width and height.
    expect(body.version).toBe('1.0');
    expect(body.type).toBe('rich');
    expect(body.html).toBe(
      `<iframe src="${link}/embed" width="200" height="40" frameborder="0" title="How to say Zoë Quinn"></iframe>`,
    );
    expect(body.width).toBe(200);
    expect(body.height).toBe(40);
    expect(typeof body.title).toBe('string');
    expect(body.provider_name).toBe('voicename');
    // The .mp3 and embed URLs of the link are understood too; format defaults to json.
    expect((await get(`/oembed?url=${encodeURIComponent(`${link}/embed`)}`)).json().html).toBe(body.html);
  });

  it('answers 404 for unknown or foreign URLs and sizes it cannot fit, 501 for xml, 400 without url', async () => {
    const { token } = await addRecordedUser(t, collectionId);
    const link = encodeURIComponent(`${BASE}/p/${token}`);
    expect((await get(`/oembed?url=${encodeURIComponent(`${BASE}/p/AAAAAAAAAAAAAAAA`)}`)).statusCode).toBe(404);
    expect((await get(`/oembed?url=${encodeURIComponent(`https://evil.example/p/${token}`)}`)).statusCode).toBe(404);
    expect((await get(`/oembed?url=${link}&maxwidth=150`)).statusCode).toBe(404);
    expect((await get(`/oembed?url=${link}&maxwidth=400&maxheight=40`)).statusCode).toBe(200);
    expect((await get(`/oembed?url=${link}&format=xml`)).statusCode).toBe(501);
    expect((await get('/oembed')).statusCode).toBe(400);
  });
});

describe('/p/<token>/qr.svg', () => {
  it('is an SVG QR code', async () => {
    const { token } = await addRecordedUser(t, collectionId);
    const res = await get(`/p/${token}/qr.svg`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.body.startsWith('<svg')).toBe(true);
  });
});

describe('the .mp3 fast path (cached tokens, before routing)', () => {
  it('answers exactly like the route (miss and hit), counts plays, and leaves HEAD, query strings and unknown tokens to the route', async () => {
    // A real HTTP server: `inject` would enter Fastify's routing directly and never reach the fast path.
    const server = await startTestServer();
    try {
      const { key: k } = await server.newAccount();
      const { token } = await addRecordedUser(server, await createCollection(server, k));
      const fetchMp3 = (suffix = '', init: RequestInit = {}) =>
        fetch(`${server.url}/p/${token}.mp3${suffix}`, { redirect: 'manual', ...init });
      // Every header but the two that differ per response by design (date, request id).
      const pick = (res: Response) => {
        const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id'));
        return { status: res.status, headers, hasRequestId: (res.headers.get('x-request-id') ?? '').startsWith('req_') };
      };
      expect(server.deps.playLinks.cache.peek(token)).toBeUndefined();
      const missed = pick(await fetchMp3()); // fast path, cache miss: loads the token
      expect(server.deps.playLinks.cache.peek(token)).toBeTruthy();
      const hit = pick(await fetchMp3()); // fast path, cache hit
      const viaRoute = pick(await fetchMp3('?x=1')); // a query string goes to the Fastify route
      expect(missed).toEqual(viaRoute);
      expect(hit).toEqual(viaRoute);
      expect(viaRoute).toMatchObject({
        status: 302,
        headers: { 'cache-control': 'no-store', 'access-control-allow-origin': '*', 'x-robots-tag': 'noindex' },
        hasRequestId: true,
      });
      expect(viaRoute.headers['set-cookie']).toBeUndefined();
      expect((await fetchMp3('', { method: 'HEAD' })).status).toBe(302);
      const unknown = await fetch(`${server.url}/p/AAAAAAAAAAAAAAAA.mp3`, { redirect: 'manual' });
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toBe('Not found');
      // Three GETs are plays; HEAD is not.
      expect(server.deps.playLinks.counter.pendingFor(token)).toBe(3);
    } finally {
      await server.close();
    }
  });

  it("keeps a client X-Request-Id and tells a play start from a seek by Range, whatever the header names' case", async () => {
    const server = await startTestServer();
    try {
      const { key: k } = await server.newAccount();
      const { token } = await addRecordedUser(server, await createCollection(server, k));
      // node:http sends header names as given (fetch would lower-case them).
      const mp3 = (headers: http.OutgoingHttpHeaders) =>
        new Promise<http.IncomingMessage>((resolve, reject) => {
          http.get(`${server.url}/p/${token}.mp3`, { headers }, (res) => resolve(res.resume())).on('error', reject);
        });
      await mp3({}); // loads the token: the requests below are cache hits
      const plays = () => server.deps.playLinks.counter.pendingFor(token);
      const before = plays();
      expect((await mp3({ 'X-Request-Id': 'client-abc-123' })).headers['x-request-id']).toBe('client-abc-123');
      expect((await mp3({ 'x-request-id': 'bad id!' })).headers['x-request-id']).toMatch(/^req_/);
      // Sent twice, the id is not one well-formed value: the server makes its own.
      expect((await mp3({ 'X-REQUEST-ID': ['first-id-1', 'second-id-2'] })).headers['x-request-id']).toMatch(/^req_/);
      expect(plays()).toBe(before + 3);
      const seek = await mp3({ RANGE: 'bytes=5000-' });
      expect(seek.statusCode).toBe(302);
      expect(plays()).toBe(before + 3); // a seek is not a play
      await mp3({ Range: 'bytes=0-' }); // a browser starting playback
      expect(plays()).toBe(before + 4);
    } finally {
      await server.close();
    }
  });
});
