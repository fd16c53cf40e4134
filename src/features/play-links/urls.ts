/** The public URLs of a play link, as the spec spells them. Shared by every feature that shows one. */
export function playLinkUrls(baseUrl: string, token: string) {
  const playLink = `${baseUrl}/p/${token}`;
  return {
    play_link: playLink,
    play_url: `${playLink}.mp3`,
    embed_url: `${playLink}/embed`,
    embed_html: `<iframe src="${playLink}/embed" width="200" height="40" frameborder="0"></iframe>`,
  };
}
