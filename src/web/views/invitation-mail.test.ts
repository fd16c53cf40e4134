/**
 * Right-to-left mail: the organiser's English text (collection, organisation, names, their own
 * message) keeps its order inside an Arabic mail, in the subject, the plain text and the HTML.
 */
import { describe, expect, it } from 'vitest';
import { type InvitationMailInput, invitationMail } from './invitation-mail.js';

const input = (overrides: Partial<InvitationMailInput>): InvitationMailInput => ({
  kind: 'invitation',
  locale: 'ar',
  person: { first_name: 'Ada', display_name: 'Ada Lovelace' },
  collection: 'Class of 2027',
  organisation: 'Riverside University',
  deadline: '2027-12-12',
  privacyNote: 'Only the ceremony team hears it.',
  logoUrl: null,
  brandColor: null,
  template: null,
  note: null,
  recordUrl: 'https://voicename.example/r/abc',
  unsubscribeUrl: 'https://voicename.example/u/abc',
  ...overrides,
});

const isolated = (text: string) => `\u2068${text}\u2069`;

describe('invitation mail in a right-to-left language', () => {
  it('isolates the collection, the organisation and the name in the subject, text and HTML', () => {
    const mail = invitationMail(input({}));
    expect(mail.subject).toContain(isolated('Class of 2027'));
    expect(mail.text).toContain(isolated('Ada'));
    expect(mail.text).toContain(isolated('Class of 2027'));
    expect(mail.text).toContain(isolated('Riverside University'));
    expect(mail.html).toContain('dir="rtl"');
    expect(mail.html).toContain(isolated('Class of 2027'));
    expect(mail.html).toContain('dir="auto">Only the ceremony team hears it.</p>');
  });

  it("gives the organiser's own message and note their own direction", () => {
    const mail = invitationMail(input({ template: 'Hello {{first_name}}, the ceremony is on 12 December.\n\n{{record_url}}' }));
    expect(mail.html).toMatch(
      /<p style="margin:0 0 16px" dir="auto">Hello \u2068Ada\u2069, the ceremony is on 12 December\.<\/p>/,
    );
    expect(mail.text).toContain('Hello \u2068Ada\u2069, the ceremony is on 12 December.');
    const rerecord = invitationMail(input({ kind: 'rerecord', note: 'Please say your family name too.' }));
    expect(rerecord.html).toContain('<blockquote dir="auto"');
  });

  it('leaves left-to-right mail free of invisible characters', () => {
    const mail = invitationMail(input({ locale: 'en' }));
    expect(mail.subject).toBe('Class of 2027: record how your name is said');
    expect(mail.text).not.toMatch(/[\u2068\u2069]/);
  });
});

describe('invitation mail with a brand colour', () => {
  const recordButton = (mailHtml: string) => /<a href="https:\/\/voicename\.example\/r\/abc" style="([^"]*)"/.exec(mailHtml)?.[1];

  it("paints the record button in the collection's colour, and in the default colour without one", () => {
    expect(recordButton(invitationMail(input({ locale: 'en', brandColor: '#1a4d8f' })).html)).toContain('background:#1a4d8f;');
    expect(recordButton(invitationMail(input({ locale: 'en' })).html)).toContain('background:#1f4fd1;');
  });
});
