/**
 * Dashboard sign-in through the real app: magic links (single use, 15 minutes, hashes only),
 * browser binding, no account enumeration, rate limits, sessions (expiry, sign-out), form
 * tokens and page headers.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findAccountByEmail } from '../src/features/accounts/repo.js';
import {
  purgeDashboardAuth,
  SIGN_IN_LIMIT_PER_EMAIL_AND_IP,
  SIGN_IN_LIMIT_PER_IP,
  SIGN_IN_MAILS_PER_EMAIL,
} from '../src/features/dashboard/service.js';
import { ManualClock } from '../src/lib/clock.js';
import { sha256Hex } from '../src/lib/secrets.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { askForLink, csrfOf, get, lastSignInLink, newBrowser, pathOf, post, signIn } from './helpers/dashboard.js';

let t: TestApp;
const clock = new ManualClock('2026-03-01T09:00:00.000Z');
let ipCounter = 0;
/** A fresh client address per test, so per-address limits of one test do not leak into another. */
const nextIp = () => `198.51.100.${++ipCounter}`;
/** A Set-Cookie line's attributes, sorted: browsers read them in any order. */
const cookieAttributes = (line: string | undefined) => (line ?? '').split('; ').slice(1).sort();
const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`;
/** Counts the mails the app sends to `email` from now on. */
function mailsTo(email: string): { count(): number } {
  const send = vi.spyOn(t.deps.mailer, 'send');
  return { count: () => send.mock.calls.filter(([message]) => message.to === email).length };
}

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

describe('magic-link sign-in', () => {
  it('sends a link, signs the asking browser in, creates the account and stores only hashes', async () => {
    const email = uniqueEmail('new');
    const browser = newBrowser(nextIp());
    expect((await get(t, browser, '/dashboard')).headers.location).toBe('/dashboard/sign-in');

    const asked = await askForLink(t, browser, email);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Check your e-mail');
    expect(await findAccountByEmail(t.deps.db.kysely, email)).toBeUndefined(); // not before the link is used

    const link = lastSignInLink(t, email);
    expect(link.startsWith(`${t.config.baseUrl}/dashboard/sign-in/`)).toBe(true);
    const token = pathOf(link).split('/').pop() as string;
    const stored = await t.deps.db.kysely.selectFrom('dashboard_sign_in_tokens').selectAll().where('email', '=', email).execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(stored)).not.toContain(token);

    const opened = await get(t, browser, pathOf(link));
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.location).toBe('/dashboard');
    const setCookie = ([] as string[]).concat(opened.headers['set-cookie'] ?? []).find((c) => c.startsWith('vn_session='));
    // http BASE_URL: no Secure
    expect(cookieAttributes(setCookie)).toEqual(['HttpOnly', 'Max-Age=604800', 'Path=/dashboard', 'SameSite=Lax']);
    const sessionId = browser.cookies.get('vn_session') as string;
    const sessions = await t.deps.db.kysely.selectFrom('dashboard_sessions').selectAll().execute();
    expect(sessions.some((s) => s.id_hash === sha256Hex(sessionId))).toBe(true);
    expect(JSON.stringify(sessions)).not.toContain(sessionId);

    const overview = await get(t, browser, '/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain(email);
    expect(await findAccountByEmail(t.deps.db.kysely, email)).toBeDefined();
  });

  it('uses a link once', async () => {
    const email = uniqueEmail('once');
    const browser = newBrowser(nextIp());
    await askForLink(t, browser, email);
    const path = pathOf(lastSignInLink(t, email));
    expect((await get(t, browser, path)).statusCode).toBe(303);
    const again = await get(t, newBrowser(nextIp()), path);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('expired or has already been used');
  });

  it('expires a link after exactly 15 minutes', async () => {
    const early = uniqueEmail('early');
    const late = uniqueEmail('late');
    const a = newBrowser(nextIp());
    const b = newBrowser(nextIp());
    await askForLink(t, a, early);
    await askForLink(t, b, late);
    clock.advance(15 * 60_000 - 1);
    expect((await get(t, a, pathOf(lastSignInLink(t, early)))).statusCode).toBe(303);
    clock.advance(1);
    expect((await get(t, b, pathOf(lastSignInLink(t, late)))).statusCode).toBe(400);
  });

  it('refuses malformed and unknown links with the same page', async () => {
    const malformed = await get(t, newBrowser(nextIp()), '/dashboard/sign-in/not-a-token');
    const unknown = await get(t, newBrowser(nextIp()), `/dashboard/sign-in/${'A'.repeat(43)}`);
    expect(malformed.statusCode).toBe(400);
    expect(unknown.statusCode).toBe(400);
    expect(malformed.body).toBe(unknown.body);
  });

  it('asks for confirmation when the link is opened in another browser (mail scanners use nothing up)', async () => {
    const email = uniqueEmail('elsewhere');
    await askForLink(t, newBrowser(nextIp()), email);
    const path = pathOf(lastSignInLink(t, email));
    const scanner = newBrowser(nextIp());
    const first = await get(t, scanner, path);
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain(`Sign in as ${email}?`);
    expect(scanner.cookies.has('vn_session')).toBe(false);

    const phone = newBrowser(nextIp());
    const confirm = await get(t, phone, path); // still usable: the scanner's visit used nothing up
    expect(confirm.statusCode).toBe(200);
    expect((await post(t, phone, path, {})).statusCode).toBe(403); // no form token
    const done = await post(t, phone, path, { csrf: csrfOf(confirm.body) });
    expect(done.statusCode).toBe(303);
    expect((await get(t, phone, '/dashboard')).body).toContain(email);
  });

  it('answers the same whether or not the address has an account', async () => {
    const existing = uniqueEmail('known');
    await signIn(t, existing, nextIp());
    const stranger = uniqueEmail('nobody');
    const a = await askForLink(t, newBrowser(nextIp()), existing);
    const b = await askForLink(t, newBrowser(nextIp()), stranger);
    expect(a.statusCode).toBe(b.statusCode);
    expect(a.body.replaceAll(existing, 'X').replace(/email=[^"]+/, '')).toBe(
      b.body.replaceAll(stranger, 'X').replace(/email=[^"]+/, ''),
    );
    expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
  });

  it('refuses an invalid address with the form and a message', async () => {
    const res = await askForLink(t, newBrowser(nextIp()), 'not-an-address');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Enter a valid e-mail address.');
    expect(res.body).toContain('value="not-an-address"');
  });

  it('refuses a sign-in form without its token', async () => {
    const browser = newBrowser(nextIp());
    await get(t, browser, '/dashboard/sign-in');
    const res = await post(t, browser, '/dashboard/sign-in', { email: uniqueEmail('nocsrf') });
    expect(res.statusCode).toBe(403);
    const wrong = await post(t, newBrowser(nextIp()), '/dashboard/sign-in', { email: uniqueEmail('x'), csrf: 'forged' });
    expect(wrong.statusCode).toBe(403);
  });
});

describe('rate limits', () => {
  it(`sends ${SIGN_IN_LIMIT_PER_EMAIL_AND_IP} links per address to one client per hour, then 429 with Retry-After and no mail`, async () => {
    const email = uniqueEmail('limited');
    const attacker = nextIp();
    for (let i = 0; i < SIGN_IN_LIMIT_PER_EMAIL_AND_IP; i++) {
      expect((await askForLink(t, newBrowser(attacker), email)).statusCode).toBe(200);
    }
    const mailed = t.deps.mailer.lastMessageTo(email);
    const refused = await askForLink(t, newBrowser(attacker), email);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('3600');
    expect(t.deps.mailer.lastMessageTo(email)).toBe(mailed); // nothing sent when refused
    // The owner of the address, elsewhere, still gets a link: a stranger cannot lock them out.
    expect((await askForLink(t, newBrowser(nextIp()), email)).statusCode).toBe(200);
    clock.advance(60 * 60_000);
    expect((await askForLink(t, newBrowser(attacker), email)).statusCode).toBe(200);
  });

  it(`sends one address at most ${SIGN_IN_MAILS_PER_EMAIL} mails per hour from anywhere, answering every client the same`, async () => {
    const email = uniqueEmail('capped');
    const mails = mailsTo(email);
    const expected = (await askForLink(t, newBrowser(nextIp()), email)).body.match(/<p id="check-email">.*?<\/p>/)?.[0];
    for (let i = 1; i < 20; i++) {
      const asked = await askForLink(t, newBrowser(nextIp()), email);
      expect(asked.statusCode).toBe(200);
      expect(asked.body).toContain(expected);
    }
    expect(mails.count()).toBe(SIGN_IN_MAILS_PER_EMAIL);
    expect((await askForLink(t, newBrowser(nextIp()), uniqueEmail('other'))).statusCode).toBe(200);
    clock.advance(60 * 60_000);
    expect((await askForLink(t, newBrowser(nextIp()), email)).statusCode).toBe(200);
    expect(mails.count()).toBe(SIGN_IN_MAILS_PER_EMAIL + 1);
  });

  it('four client addresses cannot lock the owner out: the owner, from a fifth, signs in at once, and the inbox got a handful of mails', async () => {
    const email = uniqueEmail('victim');
    const mails = mailsTo(email);
    const attackers = [nextIp(), nextIp(), nextIp(), nextIp()];
    for (const attacker of attackers) {
      for (let i = 0; i < SIGN_IN_LIMIT_PER_EMAIL_AND_IP; i++) {
        expect((await askForLink(t, newBrowser(attacker), email)).statusCode).toBe(200);
      }
      // Each attacker is refused for itself only.
      expect((await askForLink(t, newBrowser(attacker), email)).statusCode).toBe(429);
    }
    expect(mails.count()).toBeLessThanOrEqual(SIGN_IN_MAILS_PER_EMAIL);
    // Long enough for every mailed link to have expired on its own.
    clock.advance(20 * 60_000);

    const owner = newBrowser(nextIp());
    const asked = await askForLink(t, owner, email);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Check your e-mail');
    expect(mails.count()).toBeLessThanOrEqual(SIGN_IN_MAILS_PER_EMAIL);
    // The newest mail in the owner's inbox signs them in (with the confirmation: another browser asked for it).
    clock.advance(5 * 60_000);
    const path = pathOf(lastSignInLink(t, email));
    const confirm = await get(t, owner, path);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain(`Sign in as ${email}?`);
    const done = await post(t, owner, path, { csrf: csrfOf(confirm.body) });
    expect(done.statusCode).toBe(303);
    expect((await get(t, owner, '/dashboard')).body).toContain(email);
    expect(mails.count()).toBeLessThanOrEqual(SIGN_IN_MAILS_PER_EMAIL);
  });

  it(`sends ${SIGN_IN_LIMIT_PER_IP} links per client address per hour`, async () => {
    const ip = nextIp();
    for (let i = 0; i < SIGN_IN_LIMIT_PER_IP; i++) {
      expect((await askForLink(t, newBrowser(ip), uniqueEmail(`ip${i}`))).statusCode).toBe(200);
    }
    expect((await askForLink(t, newBrowser(ip), uniqueEmail('one-more'))).statusCode).toBe(429);
    expect((await askForLink(t, newBrowser(nextIp()), uniqueEmail('elsewhere'))).statusCode).toBe(200);
  });
});

describe('sessions', () => {
  it('expires after SESSION_TTL (7 days by default)', async () => {
    const email = uniqueEmail('ttl');
    const browser = await signIn(t, email, nextIp());
    clock.advance(7 * 86_400_000 - 1);
    expect((await get(t, browser, '/dashboard')).statusCode).toBe(200);
    clock.advance(1);
    const expired = await get(t, browser, '/dashboard');
    expect(expired.statusCode).toBe(303);
    expect(expired.headers.location).toBe('/dashboard/sign-in');
  });

  it('signs out: the session ends on the server, not only in the browser', async () => {
    const browser = await signIn(t, uniqueEmail('out'), nextIp());
    const stolen = browser.cookies.get('vn_session') as string;
    expect((await post(t, browser, '/dashboard/sign-out', {})).statusCode).toBe(403); // needs the form token
    const out = await post(t, browser, '/dashboard/sign-out', { csrf: browser.csrf });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/dashboard/sign-in?notice=signed-out');
    expect(browser.cookies.has('vn_session')).toBe(false);
    const replay = newBrowser(nextIp());
    replay.cookies.set('vn_session', stolen);
    expect((await get(t, replay, '/dashboard')).headers.location).toBe('/dashboard/sign-in');
  });

  it('signs out every other browser on request', async () => {
    const email = uniqueEmail('multi');
    const laptop = await signIn(t, email, nextIp());
    const phone = await signIn(t, email, nextIp());
    expect((await get(t, laptop, '/dashboard')).body).toContain('signed in on 2 browsers');
    const res = await post(t, laptop, '/dashboard/sessions/revoke-others', { csrf: laptop.csrf });
    expect(res.headers.location).toBe('/dashboard?notice=sessions-ended');
    expect((await get(t, phone, '/dashboard')).statusCode).toBe(303);
    expect((await get(t, laptop, '/dashboard')).statusCode).toBe(200);
  });

  it('purges expired sessions and day-old sign-in rows', async () => {
    await signIn(t, uniqueEmail('purge'), nextIp());
    clock.advance(8 * 86_400_000);
    const purged = await purgeDashboardAuth(t.deps);
    expect(purged.sessions).toBeGreaterThan(0);
    expect(purged.tokens).toBeGreaterThan(0);
    const left = await t.deps.db.kysely.selectFrom('dashboard_sign_in_tokens').selectAll().execute();
    expect(left).toHaveLength(0);
  });
});

describe('pages', () => {
  it('sends strict headers on every page, signed in or not, found or not', async () => {
    const browser = await signIn(t, uniqueEmail('headers'), nextIp());
    for (const [who, url] of [
      [newBrowser(nextIp()), '/dashboard/sign-in'],
      [browser, '/dashboard'],
      [browser, '/dashboard/api-keys'],
      [browser, '/dashboard/no-such-page'],
    ] as const) {
      const res = await get(t, who, url);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['content-security-policy']).not.toContain('script-src');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
    expect((await get(t, browser, '/dashboard/no-such-page')).statusCode).toBe(404);
  });

  it('refuses a state-changing form that a browser reports as cross-site, even with the token', async () => {
    const browser = await signIn(t, uniqueEmail('xsite'), nextIp());
    const res = await post(
      t,
      browser,
      '/dashboard/api-keys',
      { csrf: browser.csrf, name: 'x' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(res.statusCode).toBe(403);
  });

  it('marks cookies Secure when BASE_URL is https', async () => {
    const secure = await createTestApp({ env: { BASE_URL: 'https://voicename.example' } });
    try {
      const browser = newBrowser(nextIp());
      const form = await get(secure, browser, '/dashboard/sign-in');
      expect(String(form.headers['set-cookie'])).toMatch(/^vn_signin=[A-Za-z0-9_-]{43};/);
      expect(cookieAttributes(String(form.headers['set-cookie']))).toEqual([
        'HttpOnly',
        'Max-Age=3600',
        'Path=/dashboard',
        'SameSite=Lax',
        'Secure',
      ]);
      expect(form.headers['strict-transport-security']).toBe('max-age=31536000');
    } finally {
      await secure.close();
    }
  });

  it('has no development mailbox in production', async () => {
    const prod = await createTestApp({
      env: { NODE_ENV: 'production', LOG_LEVEL: 'silent', PAYMENTS_SANDBOX: 'true', MAIL_TRANSPORT: 'log' },
    });
    try {
      const res = await askForLink(prod, newBrowser(nextIp()), 'ops@example.com');
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('development mailbox');
      expect(prod.deps.mailer.lastMessageTo('ops@example.com')).toBeUndefined();
      expect((await get(prod, newBrowser(), '/dashboard/dev/mailbox?email=ops@example.com')).statusCode).toBe(404);
    } finally {
      await prod.close();
    }
  });

  it('shows the last message in the development mailbox to this machine, with the link clickable', async () => {
    const email = uniqueEmail('mailbox');
    const asked = await askForLink(t, newBrowser('127.0.0.1'), email);
    const href = /id="dev-mailbox" href="([^"]+)"/.exec(asked.body)?.[1] as string;
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      const mailbox = await get(t, newBrowser(ip), href.replaceAll('&amp;', '&'));
      expect(mailbox.statusCode).toBe(200);
      expect(mailbox.body).toContain(`<a class="mail-link" href="${lastSignInLink(t, email)}">`);
    }
  });

  it('never shows the development mailbox, or a link to it, to another machine', async () => {
    const email = uniqueEmail('victim');
    const asked = await askForLink(t, newBrowser(nextIp()), email);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).not.toContain('dev-mailbox');
    for (const ip of [nextIp(), '10.0.0.7', '192.168.1.20', '::ffff:198.51.100.1']) {
      const mailbox = await get(t, newBrowser(ip), `/dashboard/dev/mailbox?email=${encodeURIComponent(email)}`);
      expect(mailbox.statusCode).toBe(404);
      expect(mailbox.body).not.toContain(lastSignInLink(t, email));
    }
  });
});
