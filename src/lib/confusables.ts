/**
 * The confusable skeleton of UTS #39 (section 4), for what matters when two names must not look
 * alike: every character Unicode's confusables.txt lists as looking like an ASCII letter or digit
 * becomes that letter, so "арех" (Cyrillic) and "apex", or "0rbit" and "orbit", have the same
 * skeleton. Applied to slugs, which are already lower-cased and accent-folded.
 */
import { PROTOTYPE_PAIRS } from './confusables-data.js';

const PROTOTYPES = new Map<string, string>();
const chars = [...PROTOTYPE_PAIRS];
for (let i = 0; i + 1 < chars.length; i += 2) PROTOTYPES.set(chars[i] as string, chars[i + 1] as string);

export function confusableSkeleton(text: string): string {
  let out = '';
  for (const char of text.normalize('NFD')) out += PROTOTYPES.get(char) ?? char;
  return out.normalize('NFD');
}
