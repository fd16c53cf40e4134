/**
 * The organiser's look before a batch leaves: the exact mail a person gets (invitation or
 * reminder, in each language), drawn as the first person in that language would get it, and the
 * same mail sent to the signed-in member's own address. Both build the message as the sender
 * does (`mail-content.ts`); only the links are examples, since each person's are their own.
 */
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { Locale } from '../../i18n/index.js';
import type { PersonMessageData } from '../../integrations/channels/channel.js';
import { MessageFailure } from '../../integrations/channels/channel.js';
import { EMAIL_CHANNEL, type MessageChannels } from '../../integrations/channels/registry.js';
import { requireLiveCollection } from '../collections/service.js';
import { recordUrl } from '../users/service.js';
import { personMessageData } from './mail-content.js';
import { samplePersonIn } from './repo.js';
import { unsubscribeUrl } from './service.js';

export type PreviewKind = 'invitation' | 'reminder';
export const PREVIEW_KINDS: readonly PreviewKind[] = ['invitation', 'reminder'];

export type PreviewDeps = { db: Db; channels: MessageChannels; config: { baseUrl: string } };

/** Stands in for the personal record and unsubscribe links, which the preview must not hand out. */
const EXAMPLE_TOKEN = 'example-personal-link';
/** Who the mail greets when nobody in the collection reads that language yet. */
const EXAMPLE_PERSON = { first_name: 'Alex', display_name: 'Alex Example' };

export interface MailPreview {
  kind: PreviewKind;
  locale: Locale;
  data: PersonMessageData;
  /** The person the mail is drawn for (the first in that language), or null: an example name. */
  sampleName: string | null;
}

/** The `kind` mail in `locale` as the first person reading that language would get it. */
export async function previewMessage(
  deps: PreviewDeps,
  accountId: string,
  collectionId: string,
  input: { kind: PreviewKind; locale: Locale },
): Promise<MailPreview> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const sample = await samplePersonIn(deps.db.kysely, collection.id, input.locale, collection.language === input.locale);
  const { baseUrl } = deps.config;
  const data = personMessageData(
    baseUrl,
    input.kind,
    { ...collection, collection_name: collection.name },
    sample ?? EXAMPLE_PERSON,
    { recordUrl: recordUrl(baseUrl, EXAMPLE_TOKEN), unsubscribeUrl: unsubscribeUrl(baseUrl, EXAMPLE_TOKEN), note: null },
  );
  return { ...input, data, sampleName: sample?.display_name ?? null };
}

/**
 * Sends the previewed mail to `to` (the signed-in member's own address) at once, through the
 * e-mail channel, outside the outbox: it goes to no person of the collection. A refusal by the
 * mail server is a 503 `mail_unavailable` with its reason.
 */
export async function sendTestMessage(
  deps: PreviewDeps,
  accountId: string,
  collectionId: string,
  input: { kind: PreviewKind; locale: Locale; to: string },
): Promise<void> {
  const preview = await previewMessage(deps, accountId, collectionId, input);
  try {
    await deps.channels.get(EMAIL_CHANNEL).send(input.to, { kind: input.kind, locale: input.locale, data: preview.data });
  } catch (error) {
    const reason = error instanceof MessageFailure ? error.reason : 'the mail server did not answer';
    throw new AppError('mail_unavailable', `The test mail could not be sent: ${reason}`);
  }
}
