/**
 * The name the product page lets visitors hear. Its respelling is the guide the pronunciation
 * engine proposes for it (both words come from the dictionaries, so the proposal is right), and
 * `sample-name.mp3` is that guide's IPA (ʃɪvˈɔːn ˈmɜːfi) spoken by eSpeak NG's US English voice
 * at the computer voice's pitch and pace, encoded once as a small mono MP3:
 *   espeak-ng -v en-us -s 160 -p 50 -w name.wav "[[SI2v'O:n m'3:fi]]"
 *   ffmpeg -i name.wav -af adelay=150,apad=pad_dur=0.2 -ac 1 -ar 22050 -b:a 32k \
 *     -map_metadata -1 -id3v2_version 0 -fflags +bitexact sample-name.mp3
 */
export const SAMPLE_NAME = {
  given: 'Siobhán',
  family: 'Murphy',
  respelling: 'shiv-AWN MUR-fee',
  asset: 'sample-name.mp3',
} as const;
