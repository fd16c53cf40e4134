/**
 * What a message to a person says, before any channel renders it: the same for the sender (a
 * queued message to a real person) and for the organiser's preview and test send, so the
 * preview is the exact mail.
 */
import { type Locale, personLocale } from '../../i18n/index.js';
import type { PersonMessageData, PersonMessageKind } from '../../integrations/channels/channel.js';
import { logoUrl } from '../collections/service.js';

/** A person's mail language: their own, else the collection's (mail has no browser to ask). */
export const mailLocale = (personLanguage: string | null | undefined, collectionLanguage: string | null | undefined): Locale =>
  personLocale(personLanguage, undefined, collectionLanguage);

/** The collection's columns a message uses. */
export interface MessageCollection {
  collection_name: string;
  organisation_name: string | null;
  deadline: string | null;
  privacy_note: string | null;
  logo_key: string | null;
  brand_color: string | null;
  invitation_message: string | null;
  reminder_message: string | null;
  sender_name: string | null;
  reply_to: string | null;
}

/** The message data of `kind` to `person`; the organiser's own text for the kind when they wrote one. */
export function personMessageData(
  baseUrl: string,
  kind: PersonMessageKind,
  collection: MessageCollection,
  person: PersonMessageData['person'],
  links: { recordUrl: string; unsubscribeUrl: string; note: string | null },
): PersonMessageData {
  return {
    person,
    collection: collection.collection_name,
    organisation: collection.organisation_name,
    deadline: collection.deadline,
    privacyNote: collection.privacy_note,
    logoUrl: logoUrl(baseUrl, collection.logo_key),
    brandColor: collection.brand_color,
    template: kind === 'invitation' ? collection.invitation_message : kind === 'reminder' ? collection.reminder_message : null,
    note: links.note,
    recordUrl: links.recordUrl,
    unsubscribeUrl: links.unsubscribeUrl,
    sender: { name: collection.sender_name, replyTo: collection.reply_to },
  };
}
