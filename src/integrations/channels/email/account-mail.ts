/**
 * The e-mail templates of the dashboard's own mail: the sign-in link and a member invitation.
 * Plain text only, in English (the dashboard is not translated).
 */
export interface RenderedText {
  subject: string;
  text: string;
}

export const signInMail = (data: { link: string }): RenderedText => ({
  subject: 'Your voicename sign-in link',
  text:
    `Sign in to the voicename developer dashboard:\n\n${data.link}\n\n` +
    'The link works once, within 15 minutes. If you did not ask for it, ignore this message: ' +
    'nobody can sign in without the link.\n',
});

export const memberInvitationMail = (data: {
  invitedBy: string;
  organisation: string;
  role: string;
  link: string;
}): RenderedText => ({
  subject: 'You are invited to a voicename organisation',
  text:
    `${data.invitedBy} invited you to the voicename organisation ${data.organisation} as ${data.role}.\n\n` +
    `Join it and sign in to the developer dashboard:\n\n${data.link}\n\n` +
    'The link works once, within 7 days. If you do not expect this invitation, ignore this message.\n',
});
