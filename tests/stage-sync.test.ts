/**
 * Stage sync without a browser: the line-up order an organiser sets (the reader's default and the
 * name cards' order), the cards' codes, the scanner's answers, and the event stream that carries
 * a scan to every open reader of the collection: in this process, and on PostgreSQL from one API
 * process to another (two app instances on one database, LISTEN/NOTIFY between them).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';
import { type Browserish, cookieHeader, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';
import { runJobsLater } from './helpers/jobs.js';
import { seedPeople } from './helpers/seed-people.js';

let t: TestApp & { url: string };
let key: string;
let organiser: Browserish & { csrf: string };
let collectionId: string;
const ORGANISER = 'stage-organiser@example.com';
/** Person ids by first name. */
const ids: Record<string, string> = {};
const base = () => `/dashboard/collections/${collectionId}`;

beforeAll(async () => {
  t = await startTestServer();
  organiser = await signIn(t, ORGANISER, '203.0.113.71');
  ({ key } = await t.newAccount(ORGANISER));
  const created = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key,
    json: { name: 'Class of 2027', custom_fields: [{ key: 'seat', label: 'Seat', type: 'number' }] },
  });
  collectionId = created.json().id;
  // Imported in this order; alphabetically Ana, Siobhán, Zoë; by seat Zoë (1), Ana (2), Siobhán (3).
  const people = [
    { first_name: 'Siobhán', last_name: 'Walsh', seat: 3, phonetic_spelling: 'shi-VAWN' },
    { first_name: 'Zoë', last_name: 'Adams', seat: 1 },
    { first_name: 'Ana', last_name: 'Diaz', seat: 2 },
  ];
  for (const { seat, ...person } of people) {
    const res = await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users`,
      key,
      json: { ...person, email: `${person.last_name.toLowerCase()}@example.com`, custom_fields: { seat } },
    });
    expect(res.statusCode, res.body).toBe(201);
    ids[person.first_name] = res.json().id;
  }
  await runJobsLater(t.deps, 0);
  const guide = await t.request({
    method: 'PATCH',
    url: `/v1/collections/${collectionId}/users/${ids['Siobhán']}`,
    key,
    json: { pronunciation: { respelling: 'shi-VAWN', not_like: 'SEE-oh-ban' } },
  });
  expect(guide.statusCode, guide.body).toBe(200);
});
afterAll(() => t?.close());

/** The person ids in the order a page lists them (reader entries or name cards). */
const orderOf = (page: string) => [...page.matchAll(/data-person-id="([^"]+)"/g)].map((m) => m[1]);
/** Card codes by person id. */
const codesOf = (page: string) =>
  new Map([...page.matchAll(/data-person-id="([^"]+)" data-code="([^"]+)"/g)].map((m) => [m[1] as string, m[2] as string]));
const setLineup = (order: string, who = organiser) => post(t, who, `${base()}/lineup`, { csrf: who.csrf, order });

describe('the line-up order', () => {
  it('is the import order until an organiser sets another; the reader and the cards follow it, the menu still overrides', async () => {
    const imported = [ids['Siobhán'], ids['Zoë'], ids['Ana']];
    expect(orderOf((await get(t, organiser, `${base()}/reader`)).body)).toEqual(imported);
    expect(orderOf((await get(t, organiser, `${base()}/cards`)).body)).toEqual(imported);

    const saved = await setLineup('display_name');
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`${base()}/cards?notice=lineup-saved`);
    const alphabetical = [ids['Ana'], ids['Siobhán'], ids['Zoë']];
    const reader = (await get(t, organiser, `${base()}/reader`)).body;
    expect(orderOf(reader)).toEqual(alphabetical);
    expect(reader).toContain('<option value="display_name" selected>Alphabetical</option>');
    const cards = await get(t, organiser, `${base()}/cards?notice=lineup-saved`);
    expect(cards.body).toContain('The line-up order is saved.');
    expect(orderOf(cards.body)).toEqual(alphabetical);
    expect(orderOf((await get(t, organiser, `${base()}/reader?order=import`)).body)).toEqual(imported);

    expect((await setLineup('custom:seat')).statusCode).toBe(303);
    const bySeat = (await get(t, organiser, `${base()}/cards`)).body;
    expect(orderOf(bySeat)).toEqual([ids['Zoë'], ids['Ana'], ids['Siobhán']]);
    expect(bySeat).toContain('3 · Seat: <bdi>3</bdi>');
    expect(orderOf((await get(t, organiser, `${base()}/reader`)).body)).toEqual([ids['Zoë'], ids['Ana'], ids['Siobhán']]);
    const audit = await t.deps.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'object_id'])
      .where('action', '=', 'collection.lineup_changed')
      .execute();
    expect(audit).toHaveLength(2);
  });

  it('refuses an order the collection does not have with a 400 page, and viewers may not change it', async () => {
    const bad = await setLineup('custom:faculty');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Choose an order');
    const viewer = await inviteAndJoin(t, organiser, 'stage-viewer@example.com', 'viewer', '203.0.113.72');
    expect((await setLineup('import', viewer)).statusCode).toBe(403);
    const cards = (await get(t, viewer, `${base()}/cards`)).body;
    expect(cards).toContain('Line-up order: <strong>Seat</strong>');
    expect(cards).not.toContain('Save line-up');
  });

  it('falls back to the import order once the field it names is removed', async () => {
    const other = (
      await t.request({
        method: 'POST',
        url: '/v1/collections',
        key,
        json: { name: 'Faculty night', custom_fields: [{ key: 'faculty', label: 'Faculty', type: 'text' }] },
      })
    ).json().id as string;
    const otherBase = `/dashboard/collections/${other}`;
    expect((await post(t, organiser, `${otherBase}/lineup`, { csrf: organiser.csrf, order: 'custom:faculty' })).statusCode).toBe(
      303,
    );
    const removed = await t.request({ method: 'PATCH', url: `/v1/collections/${other}`, key, json: { custom_fields: [] } });
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await get(t, organiser, `${otherBase}/reader`)).statusCode).toBe(200);
    expect((await get(t, organiser, `${otherBase}/cards`)).body).toContain('<option value="import" selected>');
  });
});

describe('name cards', () => {
  it('show the name, its respelling, "not like", the phonetic spelling and a code that is neither an id nor a token', async () => {
    const page = (await get(t, organiser, `${base()}/cards`)).body;
    expect(page).toContain('<h2 class="card-name" dir="auto">Siobhán Walsh</h2>');
    expect(page).toContain('<p class="card-respelling">shi-VAWN</p>');
    expect(page).toContain('Not like “<bdi>SEE-oh-ban</bdi>”');
    expect(page).toContain('Phonetic spelling: <bdi>shi-VAWN</bdi>');
    const codes = codesOf(page);
    expect(codes.size).toBe(3);
    const tokens = await t.deps.db.kysely.selectFrom('users').select(['id', 'record_token']).execute();
    for (const [id, code] of codes) {
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/);
      expect(page).toContain(`aria-label="QR code of card ${code}"`);
      for (const row of tokens) {
        expect(row.record_token).not.toContain(code.replace('-', ''));
        expect(row.id.toUpperCase()).not.toContain(code.replace('-', ''));
      }
      expect(codesOf((await get(t, organiser, `${base()}/cards`)).body).get(id)).toBe(code);
    }
    expect(new Set(codes.values()).size).toBe(3);
  });

  it('come 100 to a page, in the line-up order across pages, with a link to the next; a page that is not a number is a 400', async () => {
    const big = (
      await t.request({
        method: 'POST',
        url: '/v1/collections',
        key,
        json: { name: 'Big ceremony', custom_fields: [{ key: 'seat', label: 'Seat', type: 'number' }] },
      })
    ).json().id as string;
    const people = await seedPeople(t.deps, big, 101);
    // Seats run against the import order: Person 100 sits in seat 1, Person 0 in seat 101.
    for (const [i, id] of people.entries()) {
      await t.deps.db.kysely
        .updateTable('users')
        .set({ custom_fields: JSON.stringify({ seat: 101 - i }) })
        .where('id', '=', id)
        .execute();
    }
    await t.deps.db.kysely
      .updateTable('collections')
      .set({ member_count: 101, lineup_order: 'custom:seat' })
      .where('id', '=', big)
      .execute();
    const first = (await get(t, organiser, `/dashboard/collections/${big}/cards`)).body;
    expect(codesOf(first).size).toBe(100);
    expect(first).toContain('101 cards, 100 a page: print each page in turn.');
    expect(first).toContain(`<a href="/dashboard/collections/${big}/cards?page=2">Cards 101–101</a>`);
    expect(first).toContain(`<a rel="next" href="/dashboard/collections/${big}/cards?page=2">Next cards: 101–101</a>`);
    expect(first.indexOf('Person 100<')).toBeLessThan(first.indexOf('Person 99<'));
    expect(first).toContain('<p class="card-seq">1 · Seat: <bdi>1</bdi></p>');
    const second = (await get(t, organiser, `/dashboard/collections/${big}/cards?page=2`)).body;
    expect(codesOf(second).size).toBe(1);
    expect(second).toContain('<p class="card-seq">101 · Seat: <bdi>101</bdi></p>');
    expect(second).toContain('Person 0<');
    expect(second).not.toContain('rel="next"');
    expect((await get(t, organiser, `/dashboard/collections/${big}/cards?page=9`)).body).toContain('Person 0<');
    expect((await get(t, organiser, `/dashboard/collections/${big}/cards?page=0`)).statusCode).toBe(400);
  });

  it('are 404 for another organisation', async () => {
    const stranger = await signIn(t, 'stage-stranger@example.com', '203.0.113.73');
    for (const path of ['cards', 'stage', 'stage/events', 'reader']) {
      expect((await get(t, stranger, `${base()}/${path}`)).statusCode, path).toBe(404);
    }
    const code = codesOf((await get(t, organiser, `${base()}/cards`)).body).get(ids['Ana'] as string) as string;
    const scan = await post(t, stranger, `${base()}/stage/show`, { csrf: stranger.csrf, code }, { accept: 'application/json' });
    expect(scan.statusCode).toBe(404);
    expect((await post(t, stranger, `${base()}/lineup`, { csrf: stranger.csrf, order: 'import' })).statusCode).toBe(404);
  });
});

describe('the stage scanner', () => {
  it('answers who is shown, a 400 for what is not a code and a 404 for a code of nobody here; typing is forgiving', async () => {
    const code = codesOf((await get(t, organiser, `${base()}/cards`)).body).get(ids['Ana'] as string) as string;
    const scan = (typed: string, accept = 'application/json') =>
      post(t, organiser, `${base()}/stage/show`, { csrf: organiser.csrf, code: typed }, { accept });
    const shown = await scan(` ${code.toLowerCase().replace('-', ' ')} `);
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ shown: 'Ana Diaz' });
    const notACode = await scan('hello');
    expect(notACode.statusCode).toBe(400);
    expect(notACode.json().error).toContain('10 letters and digits');
    expect((await scan('00000-00000')).statusCode).toBe(404);
    // Without the script, the form gets the scanner page back with the result.
    const page = await scan(code, 'text/html');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Now on the readers: <strong dir="auto">Ana Diaz</strong>');
    expect(page.headers['permissions-policy']).toBe('camera=(self), microphone=(), geolocation=()');
  });

  it('is open to viewers; a scan without the form token is refused', async () => {
    const viewer = await inviteAndJoin(t, organiser, 'stage-volunteer@example.com', 'viewer', '203.0.113.74');
    const code = codesOf((await get(t, viewer, `${base()}/cards`)).body).get(ids['Zoë'] as string) as string;
    const scanned = await post(t, viewer, `${base()}/stage/show`, { csrf: viewer.csrf, code }, { accept: 'application/json' });
    expect(scanned.json()).toEqual({ shown: 'Zoë Adams' });
    expect((await post(t, viewer, `${base()}/stage/show`, { code }, { accept: 'application/json' })).statusCode).toBe(403);
  });
});

/** Reads a reader's event stream over a real connection of its own, as a browser's EventSource would. */
async function openStream(server: TestApp & { url: string }, who: Browserish, collection = collectionId) {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get(
        `${server.url}/dashboard/collections/${collection}/stage/events`,
        { agent: false, headers: { cookie: cookieHeader(who) } },
        resolve,
      )
      .on('error', reject);
  });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
  response.setEncoding('utf8');
  let text = '';
  let wake = () => {};
  response.on('data', (chunk: string) => {
    text += chunk;
    wake();
  });
  return {
    /** The next `show` event's person id; rejects after `ms`. */
    async nextShown(ms: number): Promise<string> {
      const deadline = performance.now() + ms;
      for (;;) {
        const event = /event: show\ndata: (.*)\n\n/.exec(text);
        if (event) {
          text = text.slice(event.index + event[0].length);
          return (JSON.parse(event[1] as string) as { user_id: string }).user_id;
        }
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`no event within ${ms} ms`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, left);
        });
      }
    },
    close: () => response.destroy(),
  };
}

const scanThrough = async (server: TestApp, person: string) => {
  const code = codesOf((await get(server, organiser, `${base()}/cards`)).body).get(ids[person] as string) as string;
  const res = await post(
    server,
    organiser,
    `${base()}/stage/show`,
    { csrf: organiser.csrf, code },
    { accept: 'application/json' },
  );
  expect(res.statusCode, res.body).toBe(200);
};

describe('the readers’ event stream', () => {
  it('brings a scanned person to an open reader within a second, and only to readers of that collection', async () => {
    const stream = await openStream(t, organiser);
    const other = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Staff awards' } })).json()
      .id as string;
    const otherStream = await openStream(t, organiser, other);
    const started = performance.now();
    await scanThrough(t, 'Siobhán');
    expect(await stream.nextShown(1_000)).toBe(ids['Siobhán']);
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(otherStream.nextShown(200)).rejects.toThrow('no event within 200 ms');
    stream.close();
    otherStream.close();
  });
});

describe.skipIf(!usingPostgres())('on PostgreSQL, through another API process', () => {
  let b: TestApp & { url: string };
  beforeAll(async () => {
    b = await startTestServer({ database: t.database });
  });
  afterAll(async () => {
    await b.app.close();
    await b.deps.notifications.close();
    await b.deps.rateLimits.close();
    await b.deps.cards.renderer.close();
  });

  it('a scan through one process reaches a reader connected to the other within a second', async () => {
    const stream = await openStream(b, organiser);
    // The other process listens on its own connection, opened in the background at its start:
    // once a first scan has arrived (however long that connection took), time the next one.
    await scanThrough(t, 'Ana');
    expect(await stream.nextShown(15_000)).toBe(ids['Ana']);
    const started = performance.now();
    await scanThrough(t, 'Zoë');
    expect(await stream.nextShown(1_000)).toBe(ids['Zoë']);
    expect(performance.now() - started).toBeLessThan(1_000);
    stream.close();
  });
});
