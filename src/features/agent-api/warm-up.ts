/**
 * The agent API's part of the WARM_UP warm-up: runs the pure steps of a generation once on a
 * sample request, so the first real one after a restart does not pay for them. Their first runs
 * are slow for reasons a warm process never sees again: the request schema's Unicode patterns
 * (Ajv formats, slugs, script detection) are compiled by the regular-expression engine on first
 * use, `mppx` is loaded and its challenge codec (HMAC id, canonical JSON) compiled, and the name
 * lookup's pages come from disk; the English pronouncing dictionary of the name's guide is read
 * (about 100 ms, in slices that leave the event loop free). Nothing is written: no payment intent, no payment request, no
 * profile, no metric; the unpaid budget is not touched.
 */
import type { Deps } from '../../deps.js';
import type { PaymentIntentView } from '../../integrations/payments/provider.js';
import { confusableSkeleton } from '../../lib/confusables.js';
import { untrustedScriptMix } from '../../lib/scripts.js';
import { cmuLexicon } from '../../pronunciation/cmu-lexicon.js';
import { findNameHolder } from '../profiles/service.js';
import { slugify } from '../profiles/slug.js';
import { challengesFor, decodeCredential, loadMpp, wwwAuthenticate } from './mpp.js';
import { requestFingerprint } from './service.js';

/** A valid request of the kind agents send: every text field, so every field's format runs. */
const SAMPLE_REQUEST = {
  name: 'Warm-up Agent 7',
  entity_type: 'ai_agent',
  description: 'A sample request that is validated and never sent.',
  operator: 'Warm-up Operator',
  visibility: 'unlisted',
  intro: 'Hello, I am a sample.',
  voice_style: 'neutral',
  language: 'en',
} as const;

/** An intent that exists only in this process (challenges are built from it and thrown away). */
const SAMPLE_INTENT: PaymentIntentView = {
  id: 'pi_warm_up',
  status: 'requires_payment_method',
  amount: 0,
  amountReceived: 0,
  currency: 'usd',
  livemode: false,
  clientSecret: 'pi_warm_up_secret',
  metadata: {},
  amountRefunded: 0,
  disputed: false,
  paymentMethodType: null,
};

export async function warmUpAgentApi(deps: Deps): Promise<void> {
  await loadMpp();
  await cmuLexicon.load();
  const problems = deps.agentApi.validate(SAMPLE_REQUEST);
  // The sample is ours: a failure means the schema changed under it, and warming a 400 is still warming.
  if (problems) deps.logger.warn({ problems }, 'the warm-up sample request no longer validates');
  // The error path (missing fields, a refused character) has code of its own.
  deps.agentApi.validate({ ...SAMPLE_REQUEST, name: 'Warm-up\u202eAgent', visibility: undefined });
  const slug = slugify(SAMPLE_REQUEST.name);
  untrustedScriptMix(SAMPLE_REQUEST.name);
  confusableSkeleton(slug);
  requestFingerprint(SAMPLE_REQUEST);
  // A read only: whether the sample's name is taken.
  await findNameHolder(deps, slug);
  const challenges = await challengesFor(deps, {
    requestId: 'warm-up',
    expiresAt: new Date(deps.clock.now().getTime() + 60_000).toISOString(),
    intent: SAMPLE_INTENT,
  });
  await wwwAuthenticate(challenges);
  await decodeCredential('e30');
}
