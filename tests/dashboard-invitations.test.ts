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
  it('e-mails everyone who has not recorded after a confirmation naming the count, and shows each status', async () => {
    const { id, people } = await collectionWith(['Aroha', 'Bilal']);
    const base = `/dashboard/collections/${id}`;
    const page = await get(t, organiser, base);
    expect(page.body).toContain('E-mail everyone who has not recorded');
    expect(page.body).toContain(`<form method="get" action="${base}/invitations/confirm" class="row" id="invite-form">`);
    expect(page.body).toMatch(/<td data-label="E-mail sent" class="invitation"><span class="muted">Not invited<\/span>/);

    const confirm = await get(t, organiser, `${base}/invitations/confirm?who=not_recorded`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<strong>2 people will get an e-mail.</strong>');
    expect(confirm.body).toContain('2 people: the invitation');
    expect(confirm.body).toMatch(/>English<\/a>: 2/);
    expect(confirm.body).toContain('>Send 2 e-mails</button>');
    // Nothing left before the confirmation.
    expect(await t.deps.db.kysely.selectFrom('mail_messages').select('id').where('collection_id', '=', id).execute()).toEqual([]);

    // Confirmed for one person, but two would get it now: nothing leaves, and the page says why.
    const stale = await post(t, organiser, `${base}/invitations`, { csrf: organiser.csrf, who: 'not_recorded', expected: '1' });
    expect(stale.headers.location).toBe(`${base}/invitations/confirm?who=not_recorded&changed=true`);
    expect((await get(t, organiser, stale.headers.location as string)).body).toContain('Nothing was sent: the count changed');
    expect(await t.deps.db.kysely.selectFrom('mail_messages').select('id').where('collection_id', '=', id).execute()).toEqual([]);

    const sent = await post(t, organiser, `${base}/invitations`, { csrf: organiser.csrf, who: 'not_recorded', expected: '2' });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`${base}?notice=invitations-queued`);
    expect((await get(t, organiser, base)).body.match(/badge wait">Queued/g)).toHaveLength(2);

    await sender.kick();
    const after = await get(t, organiser, base);
    expect(after.body.match(/badge ok">Sent/g)).toHaveLength(2);
    // The default mailer keeps it for the development mailbox.
    const mail = t.deps.mailer.lastMessageTo(people[0]!.email);
    expect(mail?.subject).toBe('Choir: record how your name is said');
    expect(mail?.text).toContain(people[0]!.record_url);

    // Again at once: both were e-mailed in the last 24 hours. The page says so (not "everyone has
    // recorded") and offers to include them; a post anyway lands there.
    const again = await get(t, organiser, `${base}/invitations/confirm?who=not_recorded`);
    expect(again.body).toContain('Nobody new to e-mail: 2 people who have not recorded');
    expect(again.body).toContain('were e-mailed in the last 24 hours.');
    expect(again.body).toContain('>E-mail the 2 people again</button>');
    expect(again.body).not.toContain('everyone chosen has recorded');
    const none = await post(t, organiser, `${base}/invitations`, { csrf: organiser.csrf, who: 'not_recorded' });
    expect(none.headers.location).toBe(`${base}/invitations/confirm?who=not_recorded`);

    // Included: people invited before get the reminder, not the invitation word for word.
    const resend = await get(t, organiser, `${base}/invitations/confirm?who=not_recorded&resend=true`);
    expect(resend.body).toContain('2 people invited before: the reminder');
    expect(resend.body).not.toContain('id="batch-invitations"');
    const resent = await post(t, organiser, `${base}/invitations`, { csrf: organiser.csrf, who: 'not_recorded', resend: 'true' });
    expect(resent.headers.location).toBe(`${base}?notice=invitations-queued`);
    await sender.kick();
    expect(t.deps.mailer.lastMessageTo(people[1]!.email)?.subject).toBe('Reminder: record how your name is said for Choir');
  });

  it('says when everyone chosen has recorded, and keeps the confirmation from viewers', async () => {
    const { id, people } = await collectionWith(['Emre']);
    const base = `/dashboard/collections/${id}`;
    // Recorded (how is not the subject here).
    await t.deps.db.kysely.updateTable('users').set({ recording_status: 'recorded' }).where('id', '=', people[0]!.id).execute();
    const confirm = await get(t, organiser, `${base}/invitations/confirm?who=not_recorded`);
    expect(confirm.body).toContain('Nobody to e-mail: everyone chosen has recorded.');
    expect(confirm.body).not.toContain('id="confirm-send"');
    const viewer = await inviteAndJoin(t, organiser, 'invites-confirm-viewer@example.com', 'viewer');
    expect((await get(t, viewer, `${base}/invitations/confirm?who=not_recorded`)).statusCode).toBe(403);
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
    // Invited before: the button says what they will get, and it is the reminder.
    expect(page.body).toContain('>Send a reminder</button>');
    const again = await post(t, organiser, `${base}/invite`, { csrf: organiser.csrf });
    expect(again.headers.location).toBe(`${base}?notice=reminder-queued`);
    await sender.kick();
    expect(t.deps.mailer.lastMessageTo(people[0]!.email)?.subject).toBe('Reminder: record how your name is said for Choir');
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
