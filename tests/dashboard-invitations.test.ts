/**
 * Invitations from the dashboard on the default (development) mailer: the people table's
 * "e-mail everyone who has not recorded" form and its status column, a person's own invite
 * button, a viewer's read-only view, and the mail landing in the development mailbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSender } from '../src/features/invitations/sender.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';

let t: TestApp;
let key: string;
let organiser: Browserish & { csrf: string };
let sender: MessageSender;
const ORGANISER = 'invites-organiser@example.com';

beforeAll(async () => {
  t = await createTestApp({ env: { MAIL_RATE_PER_MINUTE: '0' } });
  organiser = await signIn(t, ORGANISER, '203.0.113.51');
  ({ key } = await t.newAccount(ORGANISER));
  sender = new MessageSender(t.deps, 'dashboard-sender');
});
afterAll(() => t.close());

async function collectionWith(names: string[]) {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Choir' } });
  const id = res.json<{ id: string }>().id;
  const people = [];
  for (const name of names) {
    const user = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: `${name}-${id.slice(0, 6)}@example.com`, first_name: name },
    });
    people.push(user.json<{ id: string; email: string; record_url: string }>());
  }
  return { id, people };
}

describe('dashboard invitations', () => {
  it('e-mails everyone who has not recorded from the people table, and shows each status', async () => {
    const { id, people } = await collectionWith(['Aroha', 'Bilal']);
    const page = await get(t, organiser, `/dashboard/collections/${id}`);
    expect(page.body).toContain('E-mail everyone who has not recorded');
    expect(page.body).toMatch(/<td data-label="E-mail sent" class="invitation"><span class="muted">Not invited<\/span>/);

    const sent = await post(t, organiser, `/dashboard/collections/${id}/invitations`, {
      csrf: organiser.csrf,
      filter: 'not_recorded',
    });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`/dashboard/collections/${id}?notice=invitations-queued`);
    expect((await get(t, organiser, `/dashboard/collections/${id}`)).body.match(/badge wait">Queued/g)).toHaveLength(2);

    await sender.kick();
    const after = await get(t, organiser, `/dashboard/collections/${id}`);
    expect(after.body.match(/badge ok">Sent/g)).toHaveLength(2);
    // The default mailer keeps it for the development mailbox.
    const mail = t.deps.mailer.lastMessageTo(people[0]!.email);
    expect(mail?.subject).toBe('Choir: record how your name is said');
    expect(mail?.text).toContain(people[0]!.record_url);

    // Again at once: everyone was invited in the last 24 hours.
    const again = await post(t, organiser, `/dashboard/collections/${id}/invitations`, { csrf: organiser.csrf });
    expect(again.headers.location).toBe(`/dashboard/collections/${id}?notice=invitations-none`);
    const resent = await post(t, organiser, `/dashboard/collections/${id}/invitations`, { csrf: organiser.csrf, resend: 'true' });
    expect(resent.headers.location).toBe(`/dashboard/collections/${id}?notice=invitations-queued`);
  });

  it("invites one person from their page, and refuses a form without the session's token", async () => {
    const { id, people } = await collectionWith(['Chen']);
    const base = `/dashboard/collections/${id}/people/${people[0]!.id}`;
    expect((await get(t, organiser, base)).body).toContain('>Send invitation</button>');
    expect((await post(t, organiser, `${base}/invite`, {})).statusCode).toBe(403);
    const res = await post(t, organiser, `${base}/invite`, { csrf: organiser.csrf });
    expect(res.headers.location).toBe(`${base}?notice=invitation-queued`);
    expect((await get(t, organiser, `${base}?notice=invitation-queued`)).body).toContain('The invitation is on its way.');
    await sender.kick();
    const page = await get(t, organiser, base);
    expect(page.body).toMatch(/id="invitation-status"><span class="badge ok">Sent/);
    expect(page.body).toContain('>Send the invitation again</button>');
  });

  it('shows a viewer the status but no button, and refuses their post', async () => {
    const { id, people } = await collectionWith(['Dara']);
    const viewer = await inviteAndJoin(t, organiser, 'invites-viewer@example.com', 'viewer');
    const base = `/dashboard/collections/${id}/people/${people[0]!.id}`;
    const page = await get(t, viewer, base);
    expect(page.body).toContain('id="invitation-status"');
    expect(page.body).not.toContain('Send invitation');
    expect((await get(t, viewer, `/dashboard/collections/${id}`)).body).not.toContain('E-mail everyone');
    expect((await post(t, viewer, `${base}/invite`, { csrf: viewer.csrf })).statusCode).toBe(403);
  });
});
