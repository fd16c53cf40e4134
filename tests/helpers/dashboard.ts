/** Dashboard sessions through `app.inject`: the sign-in flow as a browser does it, cookies included. */
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from './app.js';

export interface Browserish {
  /** Cookie jar: name → value. */
  cookies: Map<string, string>;
  ip: string;
}

export const newBrowser = (ip = '203.0.113.10'): Browserish => ({ cookies: new Map(), ip });

export function cookieHeader(browser: Browserish): string {
  return [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** Applies Set-Cookie headers like a browser (Max-Age=0 deletes). */
export function storeCookies(browser: Browserish, res: LightMyRequestResponse): void {
  const raw = res.headers['set-cookie'];
  for (const line of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
    const [pair] = line.split(';');
    const eq = (pair as string).indexOf('=');
    const name = (pair as string).slice(0, eq);
    const value = (pair as string).slice(eq + 1);
    if (/Max-Age=0(;|$)/.test(line) || value === '') browser.cookies.delete(name);
    else browser.cookies.set(name, value);
  }
}

export async function get(t: TestApp, browser: Browserish, url: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({
    method: 'GET',
    url,
    remoteAddress: browser.ip,
    headers: { cookie: cookieHeader(browser), ...headers },
  });
  storeCookies(browser, res);
  return res;
}

export async function post(
  t: TestApp,
  browser: Browserish,
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    remoteAddress: browser.ip,
    headers: { cookie: cookieHeader(browser), 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
  storeCookies(browser, res);
  return res;
}

/** The form token (hidden `csrf` field) of a rendered page. */
export function csrfOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error('page has no form token');
  return match[1] as string;
}

/** The sign-in link in the last message the development mailbox holds for `email`. */
export function lastSignInLink(t: Pick<TestApp, 'deps'>, email: string): string {
  const message = t.deps.mailer.lastMessageTo(email);
  if (!message) throw new Error(`no mail to ${email}`);
  const match = /(https?:\/\/\S+\/dashboard\/sign-in\/\S+)/.exec(message.text);
  if (!match) throw new Error('no sign-in link in the message');
  return match[1] as string;
}

/** Path of a link (inject takes paths). */
export const pathOf = (link: string) => new URL(link).pathname;

export async function askForLink(t: TestApp, browser: Browserish, email: string) {
  const form = await get(t, browser, '/dashboard/sign-in');
  return post(t, browser, '/dashboard/sign-in', { email, csrf: csrfOf(form.body) });
}

/** Signs `email` in with a fresh browser; returns the browser (session cookie set) and the overview's form token. */
export async function signIn(t: TestApp, email: string, ip = '203.0.113.10'): Promise<Browserish & { csrf: string }> {
  const browser = newBrowser(ip);
  const asked = await askForLink(t, browser, email);
  expect(asked.statusCode).toBe(200);
  const opened = await get(t, browser, pathOf(lastSignInLink(t, email)));
  expect(opened.statusCode).toBe(303);
  expect(opened.headers.location).toBe('/dashboard');
  const overview = await get(t, browser, '/dashboard');
  expect(overview.statusCode).toBe(200);
  return Object.assign(browser, { csrf: csrfOf(overview.body) });
}

/** The invitation link in the last message the development mailbox holds for `email`. */
export function lastInvitationLink(t: TestApp, email: string): string {
  const message = t.deps.mailer.lastMessageTo(email);
  if (!message) throw new Error(`no mail to ${email}`);
  const match = /(https?:\/\/\S+\/dashboard\/invitations\/\S+)/.exec(message.text);
  if (!match) throw new Error('no invitation link in the message');
  return match[1] as string;
}

/**
 * `owner` invites `email` with `role` through the members page; the invitee opens the mailed
 * link in a fresh browser and joins. Returns that browser, signed in to the owner's organisation.
 */
export async function inviteAndJoin(
  t: TestApp,
  owner: Browserish & { csrf: string },
  email: string,
  role: 'owner' | 'admin' | 'viewer',
  ip = '203.0.113.50',
): Promise<Browserish & { csrf: string }> {
  const invited = await post(t, owner, '/dashboard/members/invite', { csrf: owner.csrf, email, role });
  expect(invited.statusCode).toBe(303);
  const browser = newBrowser(ip);
  const path = pathOf(lastInvitationLink(t, email));
  const offer = await get(t, browser, path);
  expect(offer.statusCode).toBe(200);
  const joined = await post(t, browser, path, { csrf: csrfOf(offer.body) });
  expect(joined.statusCode).toBe(303);
  const overview = await get(t, browser, '/dashboard');
  expect(overview.statusCode).toBe(200);
  return Object.assign(browser, { csrf: csrfOf(overview.body) });
}

/** A multipart/form-data upload as a browser sends it: the form token and one file. */
export async function uploadFile(
  t: TestApp,
  who: Browserish,
  url: string,
  file: { name: string; data: Buffer } | null,
  csrf: string,
) {
  const boundary = '----voicenameTestBoundary7MA4YWxkTrZu0gW';
  const parts: Buffer[] = [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${csrf}\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file?.name ?? ''}"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    file?.data ?? Buffer.alloc(0),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ];
  const res = await t.app.inject({
    method: 'POST',
    url,
    remoteAddress: who.ip,
    headers: { cookie: cookieHeader(who), 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat(parts),
  });
  storeCookies(who, res);
  return res;
}
