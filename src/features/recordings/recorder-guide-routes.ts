/**
 * The record page's pronunciation guide, for the person behind the record link: hear what they
 * are typing (`POST /r/<token>/pronunciation/hear`, audio/mpeg), save it with its "not like
 * this", approve the computer voice saying it, or withdraw that approval (plain form posts
 * answered with a redirect to the page). Registered inside the recorder's plugin, so the
 * recorder's per-address rate limit and form parser cover these routes too, and every post must
 * come from the page itself. Only here is `approveGuide` reachable: organisers never approve.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { checkBody } from '../../http/validation.js';
import { personLocale, translator } from '../../i18n/index.js';
import { RESPELLING_KEY } from '../../pronunciation/respelling-key.js';
import type { RecorderGuideData } from '../../web/views/recorder-guide.js';
import { guideAudioUrl } from '../pronunciation/present.js';
import { HearDraftBody, MAX_NOT_LIKE_LENGTH, MAX_RESPELLING_LENGTH, PronunciationInput } from '../pronunciation/schemas.js';
import { applyNameLanguage } from '../pronunciation/generate-service.js';
import { approveGuide, guidesOf, speakDraft, withdrawApproval, writeGuide } from '../pronunciation/service.js';
import { UpdateUserBody } from '../users/schemas.js';
import { updateUser } from '../users/service.js';
import { RecorderParams } from './schemas.js';
import { requireRecorderUser } from './service.js';

type RecorderUser = Awaited<ReturnType<typeof requireRecorderUser>>;

/** What the recorder plugin lends these routes: its origin check and its page, re-rendered with an error. */
export interface GuideRouteContext {
  sameOrigin(request: FastifyRequest): boolean;
  renderInvalid(
    request: FastifyRequest,
    reply: FastifyReply,
    user: RecorderUser,
    guide: RecorderGuideData,
  ): Promise<FastifyReply>;
}

/** The guide part of the record page's data. */
export async function recorderGuideData(
  deps: Pick<Deps, 'db' | 'config'>,
  user: RecorderUser,
  draft: Pick<RecorderGuideData, 'draft' | 'error'> = { draft: null, error: null },
): Promise<RecorderGuideData> {
  const guide = (await guidesOf(deps, [user.id])).get(user.id);
  const base = `/r/${user.record_token}/pronunciation`;
  return {
    guide: guide
      ? {
          respelling: guide.respelling,
          ipa: guide.ipa,
          language: guide.language,
          languageSuggested: guide.language_suggested === 1,
          notLike: guide.not_like,
          approvedAt: guide.approved_at,
          audioUrl: guide.approved_at && guide.audio_token ? guideAudioUrl(deps.config.baseUrl, guide.audio_token) : null,
        }
      : null,
    ...draft,
    nameLanguage: user.name_language,
    languageOptions: NAME_LANGUAGES,
    languageUrl: `${base}/language`,
    saveUrl: base,
    approveUrl: `${base}/approve`,
    withdrawUrl: `${base}/withdraw`,
    hearUrl: `${base}/hear`,
    maxRespelling: MAX_RESPELLING_LENGTH,
    maxNotLike: MAX_NOT_LIKE_LENGTH,
    key: RESPELLING_KEY,
  };
}

/**
 * The languages a person may pick for their name on the record page: those the speech engine
 * reads well, most spoken first (the API and imports take any BCP 47 tag).
 */
const NAME_LANGUAGES = [
  'en',
  'es',
  'fr',
  'de',
  'it',
  'pt',
  'ga',
  'cy',
  'nl',
  'pl',
  'cs',
  'sv',
  'da',
  'nb',
  'fi',
  'el',
  'tr',
  'ru',
  'uk',
  'ar',
  'he',
  'fa',
  'hi',
  'bn',
  'pa',
  'ur',
  'ta',
  'te',
  'zh',
  'ja',
  'ko',
  'vi',
  'th',
  'id',
  'ms',
  'sw',
  'yo',
  'am',
  'mi',
  'haw',
];

const forbiddenElsewhere = () =>
  new AppError('forbidden', 'This form can only be sent from its own record page.', { status: 403 });

export function registerGuideRoutes(app: FastifyInstance, deps: Deps, context: GuideRouteContext): void {
  const backToPage = (reply: FastifyReply, user: RecorderUser, notice: string) =>
    reply.code(303).header('location', `/r/${user.record_token}?${notice}=1`).header('cache-control', 'no-store').send();

  /** The form's text, checked by the API's schema; the page again with the error when the respelling is not in the key. */
  const saveFromForm = async (request: FastifyRequest, reply: FastifyReply, user: RecorderUser): Promise<boolean> => {
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const respelling = (form.respelling ?? '').trim();
    const notLike = (form.not_like ?? '').trim();
    try {
      const input = checkBody<PronunciationInput>(PronunciationInput, { respelling, not_like: notLike || null });
      await writeGuide(deps, user, input, 'person');
      return true;
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      await context.renderInvalid(
        request,
        reply.code(400),
        user,
        await recorderGuideData(deps, user, { draft: { respelling, notLike }, error: 'respelling_invalid' }),
      );
      return false;
    }
  };

  const params = { schema: { hide: true, params: RecorderParams } };
  const tokenOf = (request: FastifyRequest) => (request.params as { token: string }).token;

  app.post('/r/:token/pronunciation', params, async (request, reply) => {
    if (!context.sameOrigin(request)) throw forbiddenElsewhere();
    const user = await requireRecorderUser(deps, tokenOf(request));
    if (!(await saveFromForm(request, reply, user))) return reply;
    return backToPage(reply, user, 'guide_saved');
  });

  // "This computer voice says my name right": what is in the field is what they heard, so it is
  // saved first (unchanged text keeps the guide as it is), then approved.
  app.post('/r/:token/pronunciation/approve', params, async (request, reply) => {
    if (!context.sameOrigin(request)) throw forbiddenElsewhere();
    const user = await requireRecorderUser(deps, tokenOf(request));
    if (!(await saveFromForm(request, reply, user))) return reply;
    await approveGuide(deps, user);
    return backToPage(reply, user, 'guide_approved');
  });

  // "Language of my name": stored as the person's own `name_language`, then the guide follows it.
  app.post('/r/:token/pronunciation/language', params, async (request, reply) => {
    if (!context.sameOrigin(request)) throw forbiddenElsewhere();
    const user = await requireRecorderUser(deps, tokenOf(request));
    const form = (request.body ?? {}) as Record<string, string | undefined>;
    const chosen = (form.name_language ?? '').trim();
    if (!(NAME_LANGUAGES as readonly string[]).includes(chosen)) {
      throw new AppError('parameter_invalid', 'Choose one of the languages listed.', { param: 'name_language' });
    }
    const changes = checkBody<UpdateUserBody>(UpdateUserBody, { name_language: chosen });
    await updateUser(deps, user.account_id, user.collection_id, user.id, changes, 'person');
    await applyNameLanguage(deps, { ...user, name_language: chosen });
    return backToPage(reply, user, 'guide_saved');
  });

  app.post('/r/:token/pronunciation/withdraw', params, async (request, reply) => {
    if (!context.sameOrigin(request)) throw forbiddenElsewhere();
    const user = await requireRecorderUser(deps, tokenOf(request));
    await withdrawApproval(deps, user);
    return backToPage(reply, user, 'guide_withdrawn');
  });

  // The page's "Hear it": the computer voice saying the respelling in the field, as phonemes
  // (never the name re-read as English text); "in a sentence" puts the page's own words before it.
  app.post('/r/:token/pronunciation/hear', { ...params, bodyLimit: 4 * 1024 }, async (request, reply) => {
    if (!context.sameOrigin(request)) throw forbiddenElsewhere();
    const user = await requireRecorderUser(deps, tokenOf(request));
    const body = checkBody<HearDraftBody>(HearDraftBody, request.body);
    const locale = personLocale(user.language, request.headers['accept-language'], user.collection_language);
    const spoken = await speakDraft(
      deps,
      user,
      body.respelling,
      body.sentence ? { sentence: { before: translator(locale, 'recorder')('guide_sentence_before'), language: locale } } : {},
    );
    return reply.type('audio/mpeg').header('cache-control', 'no-store').send(spoken.mp3);
  });
}
