/**
 * The e-mail channel: renders each message with the e-mail templates (the people's mail in
 * `src/web/views/invitation-mail.ts`, the dashboard's in `account-mail.ts`) and sends it through
 * the configured mailer (`log` or `smtp`, src/integrations/mailer.ts). SMTP 4xx replies and
 * connection failures are temporary, 5xx replies permanent.
 */
import { invitationMail } from '../../../web/views/invitation-mail.js';
import { isTemporaryMailFailure, type Mailer, type MailMessage } from '../../mailer.js';
import { type ChannelMessage, type MessageChannel, MessageFailure } from '../channel.js';
import { EMAIL_CHANNEL } from '../registry.js';
import { memberInvitationMail, signInMail } from './account-mail.js';

/** The SMTP reply or error message, on one line and short: shown to organisers as the reason. */
function reasonOf(error: unknown): string {
  const { response, message } = (error ?? {}) as { response?: string; message?: string };
  return (response ?? message ?? String(error)).replace(/[\r\n\t]+/g, ' ').slice(0, 500);
}

/** The mail of `message` to `address`, without the envelope's From (the mailer sets it). */
function renderEmail(address: string, message: ChannelMessage): MailMessage {
  switch (message.kind) {
    case 'sign_in':
      return { to: address, ...signInMail(message.data) };
    case 'member_invitation':
      return { to: address, ...memberInvitationMail(message.data) };
    default: {
      const { sender, ...data } = message.data;
      return {
        to: address,
        ...invitationMail({ kind: message.kind, locale: message.locale, ...data }),
        ...(sender.name ? { fromName: sender.name } : {}),
        ...(sender.replyTo ? { replyTo: sender.replyTo } : {}),
        // RFC 8058 one-click unsubscribe: mail clients POST `List-Unsubscribe=One-Click` to the URL.
        headers: {
          'List-Unsubscribe': `<${data.unsubscribeUrl}>`,
          'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        },
      };
    }
  }
}

export function createEmailChannel(mailer: Mailer): MessageChannel {
  return {
    name: EMAIL_CHANNEL,
    addressOf: (contact) => contact.email,
    async send(address, message) {
      try {
        await mailer.send(renderEmail(address, message));
      } catch (error) {
        throw new MessageFailure(isTemporaryMailFailure(error), reasonOf(error), { cause: error });
      }
    },
    close: () => mailer.close(),
  };
}
