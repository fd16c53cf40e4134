/**
 * The `sandbox` payment method of the Machine Payments Protocol, as voicename's built-in sandbox
 * processor offers it, for any `mppx` client (`Mppx.create`, `McpClient.wrap`, or the `mppx`
 * command line through a config file):
 *
 *   import { Mppx } from 'mppx/client';
 *   import { sandbox } from 'voicename/mpp-sandbox';
 *   const mppx = Mppx.create({ methods: [sandbox()], polyfill: false });
 *   await mppx.fetch('http://localhost:3000/api/entities/generate', { method: 'POST', ... });
 *
 * The challenge's request names the sandbox payment intent made for this very request, its
 * client secret and confirm URL; "paying" confirms that intent, and the credential carries its
 * id. The server then checks everything with its own records, as for any payment.
 */
import { Credential, Method, z } from 'mppx';

/** The method's wire shape, shared by the server (which issues it) and the client (which pays it). */
export const sandboxCharge = Method.from({
  name: 'sandbox',
  intent: 'charge',
  schema: {
    credential: {
      payload: z.object({ reference: z.string().check(z.regex(/^pi_[A-Za-z0-9]{8,64}$/)) }),
    },
    request: z.object({
      amount: z.string(),
      currency: z.string(),
      decimals: z.number(),
      description: z.optional(z.string()),
      methodDetails: z.object({
        reference: z.string(),
        clientSecret: z.string(),
        confirmUrl: z.string(),
      }),
    }),
  },
});

export interface SandboxOptions {
  /** The fetch used for the confirm call; pass an unwrapped one when `Mppx.create` polyfills the global. */
  fetch?: typeof globalThis.fetch;
  /** `pm_card_visa` (default) pays; `pm_card_chargeDeclined` is declined, to try the failure path. */
  paymentMethod?: 'pm_card_visa' | 'pm_card_chargeDeclined';
}

/** The client half: confirms the sandbox intent named in the challenge, then answers with its id. */
export function sandbox(options: SandboxOptions = {}) {
  return Method.toClient(sandboxCharge, {
    async createCredential({ challenge }) {
      const { reference, clientSecret, confirmUrl } = challenge.request.methodDetails;
      // The confirm URL must belong to the server that issued the challenge.
      if (new URL(confirmUrl).hostname !== challenge.realm) {
        throw new Error(`sandbox: confirm URL ${confirmUrl} is not on ${challenge.realm}`);
      }
      const fetch = options.fetch ?? globalThis.fetch;
      const response = await fetch(confirmUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_secret: clientSecret, payment_method: options.paymentMethod ?? 'pm_card_visa' }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { message?: string };
        throw new Error(`sandbox: payment failed (${response.status}): ${body.message ?? response.statusText}`);
      }
      return Credential.serialize({ challenge, payload: { reference } });
    },
  });
}
