/**
 * The message channels of this process, built once in `src/deps.ts`, looked up by name: the
 * outbox stores a channel name per message, sign-in and member mail ask for `email` by name.
 */
import type { MessageChannel } from './channel.js';

export const EMAIL_CHANNEL = 'email';

/**
 * Which channel a collection's message to a person goes through. One function on purpose: a
 * per-person choice (a preferred channel, a phone number) needs a product and API decision
 * first, so today every person is reached by e-mail.
 */
export type ChannelChoice = (recipient: { collectionId: string; userId: string }) => string;

export const emailForEveryone: ChannelChoice = () => EMAIL_CHANNEL;

export interface MessageChannels {
  /** The channel registered as `name`; throws for an unknown name (a programming or deployment error). */
  get(name: string): MessageChannel;
  has(name: string): boolean;
  channelFor: ChannelChoice;
  close(): Promise<void>;
}

export function createChannelRegistry(channels: MessageChannel[], choose: ChannelChoice = emailForEveryone): MessageChannels {
  const byName = new Map<string, MessageChannel>();
  for (const channel of channels) {
    if (byName.has(channel.name)) throw new Error(`Two message channels are named "${channel.name}".`);
    byName.set(channel.name, channel);
  }
  return {
    get(name) {
      const channel = byName.get(name);
      if (!channel) throw new Error(`No message channel "${name}" is registered.`);
      return channel;
    },
    has: (name) => byName.has(name),
    channelFor: choose,
    async close() {
      for (const channel of byName.values()) await channel.close();
    },
  };
}
