/**
 * Names the English dictionary has wrong or lacks, checked by hand against the names' own
 * languages: Irish names that English spelling rules and the CMU dictionary both misread
 * ("Siobhan" is shiv-AWN, not SHOW-bahn). Looked up before the CMU dictionary for English parts.
 * IPA as the speech engine writes it (stress before the vowel), in its English voice's sounds.
 */
import type { Lexicon } from './cmu-lexicon.js';

const NAMES: Readonly<Record<string, string>> = {
  siobhan: 'ʃɪvˈɔːn',
  siobhán: 'ʃɪvˈɔːn',
  aoife: 'ˈiːfə',
  niamh: 'nˈiːv',
  saoirse: 'sˈɜːʃə',
  caoimhe: 'kˈiːvə',
  sinead: 'ʃɪnˈeɪd',
  sinéad: 'ʃɪnˈeɪd',
  roisin: 'ɹoʊʃˈiːn',
  róisín: 'ɹoʊʃˈiːn',
  oisin: 'ʌʃˈiːn',
  oisín: 'ʌʃˈiːn',
  padraig: 'pˈɔːdɹɪɡ',
  pádraig: 'pˈɔːdɹɪɡ',
  eoin: 'ˈoʊɪn',
  grainne: 'ɡɹˈɔːnjə',
  gráinne: 'ɡɹˈɔːnjə',
  ciaran: 'kˈɪɹən',
  ciarán: 'kˈɪɹən',
  aisling: 'ˈæʃlɪŋ',
  tadhg: 'tˈaɪɡ',
  dearbhla: 'dˈɛɹvlə',
  clodagh: 'klˈoʊdə',
  orla: 'ˈɔːɹlə',
};

/** The hand-checked names above, as a lexicon (case and accents as typed: both spellings are listed). */
export const nameLexicon: Lexicon = {
  lookup(word) {
    return Promise.resolve(NAMES[word.normalize('NFC').toLowerCase()] ?? null);
  },
};
