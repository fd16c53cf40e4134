/**
 * Background work of invitations: the message sender (every two seconds, and at once when this
 * process or, on PostgreSQL, another one queues mail) and the reminder schedule. Both are safe
 * on every worker at once: messages are claimed with a lease, reminders are unique per person
 * and reminder day.
 */
import { hostname } from 'node:os';
import type { Deps } from '../../deps.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { randomToken } from '../../lib/ids.js';
import { MessageSender } from './sender.js';
import { queueDueReminders } from './service.js';

export const createMessageSender = (deps: Deps): MessageSender =>
  new MessageSender(deps, `${hostname()}:${process.pid}:${randomToken(4)}`);

export const invitationTasks = (deps: Deps, sender: MessageSender): PeriodicTask[] => [
  { name: 'mail.send', everyMs: 2_000, onWakeup: true, run: () => sender.kick() },
  {
    name: 'invitations.reminders',
    everyMs: 15 * 60_000,
    run: async () => {
      const queued = await queueDueReminders(deps);
      if (queued > 0) deps.logger.info({ queued }, 'queued reminders');
    },
  },
];
