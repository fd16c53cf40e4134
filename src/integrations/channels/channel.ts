/**
 * The message channel seam: everything the service says to a person or a member (an invitation,
 * a reminder, a re-record request, a sign-in link, a member invitation) is a channel-neutral
 * message handed to a channel, which addresses the recipient, renders the message in its own
 * format with its own templates, and sends it. E-mail is the first channel
 * (`email/channel.ts`); a second one (SMS, chat) is one more folder implementing
 * `MessageChannel`, registered in `src/deps.ts`. The outbox, throttle, retries and unsubscribe
 * stay with the callers (src/features/invitations), the same for every channel.
 */
import type { Locale } from '../../i18n/index.js';

/** Messages to the people of a collection (queued in the outbox, throttled, with an unsubscribe link). */
export type PersonMessageKind = 'invitation' | 'reminder' | 'rerecord';

export interface PersonMessageData {
  person: { first_name: string; display_name: string };
  collection: string;
  organisation: string | null;
  /** `YYYY-MM-DD` or null. */
  deadline: string | null;
  privacyNote: string | null;
  logoUrl: string | null;
  /** The collection's brand colour (`#rrggbb`, checked for AA contrast with white text), or null: the default. */
  brandColor: string | null;
  /** The organiser's text for an invitation or a reminder (plain text with `{{placeholders}}`); null: the language's default text. */
  template: string | null;
  /** The organiser's note of a re-record request. */
  note: string | null;
  recordUrl: string;
  unsubscribeUrl: string;
  /** Who the organiser says the message is from and where answers go, where the channel can say so. */
  sender: { name: string | null; replyTo: string | null };
}

export type ChannelMessage =
  | { kind: PersonMessageKind; locale: Locale; data: PersonMessageData }
  | { kind: 'sign_in'; locale: Locale; data: { link: string } }
  | { kind: 'member_invitation'; locale: Locale; data: { invitedBy: string; organisation: string; role: string; link: string } };

/** What the service knows about a recipient; a channel picks its own address from it. */
export interface Contact {
  email: string;
}

/**
 * A send that failed, classified by the channel: `temporary` failures (a full queue, a dropped
 * connection) are worth another attempt, permanent ones (no such recipient) are not. `reason`
 * is one short line, shown to organisers.
 */
export class MessageFailure extends Error {
  constructor(
    readonly temporary: boolean,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'MessageFailure';
  }
}

export interface MessageChannel {
  /** The registry key, stored on each outbox row (`email`). */
  readonly name: string;
  /** Where this channel reaches the contact (an e-mail address for e-mail), or null when it cannot. */
  addressOf(contact: Contact): string | null;
  /** Renders `message` with the channel's templates and sends it; a failure is thrown as a `MessageFailure`. */
  send(address: string, message: ChannelMessage): Promise<void>;
  close(): Promise<void>;
}
