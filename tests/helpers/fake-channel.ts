/**
 * A second message channel for tests (a chat service, say): it keeps what it was asked to send
 * and fails on request, so a test shows a channel is one adapter the outbox, throttle, retries
 * and unsubscribe treat like e-mail.
 */
import { type ChannelMessage, type MessageChannel, MessageFailure } from '../../src/integrations/channels/channel.js';

export interface FakeChannel extends MessageChannel {
  readonly sent: Array<{ address: string; message: ChannelMessage }>;
  /** The next `times` sends to `address` fail, temporarily or for good. */
  fail(address: string, failure: { temporary: boolean; times?: number }): void;
  to(address: string): ChannelMessage[];
}

export function createFakeChannel(name = 'chat'): FakeChannel {
  const sent: FakeChannel['sent'] = [];
  const failures = new Map<string, { temporary: boolean; times: number }>();
  return {
    name,
    sent,
    // The chat handle of a person is derived from their e-mail here; a real adapter would read its own field.
    addressOf: (contact) => `@${contact.email}`,
    async send(address, message) {
      const failure = failures.get(address);
      if (failure && failure.times > 0) {
        failure.times -= 1;
        throw new MessageFailure(failure.temporary, failure.temporary ? 'chat service busy' : 'no such chat handle');
      }
      sent.push({ address, message });
    },
    fail(address, { temporary, times = Number.POSITIVE_INFINITY }) {
      failures.set(address, { temporary, times });
    },
    to: (address) => sent.filter((entry) => entry.address === address).map((entry) => entry.message),
    async close() {},
  };
}
