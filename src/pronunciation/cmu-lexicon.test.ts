/** The CMU dictionary as IPA: ARPAbet conversion, lookups, and a load that never stalls the event loop. */
import { describe, expect, it } from 'vitest';
import { arpabetToIpa, CmuLexicon } from './cmu-lexicon.js';

describe('arpabetToIpa', () => {
  it.each([
    ['SH AW1 B AA2 N', 'ˈʃaʊˌbɑːn'],
    ['K AE1 TH ER0 AH0 N', 'ˈkæθɚən'],
    ['AE2 L AH0 G Z AE1 N D ER0', 'ˌæləɡˈzændɚ'],
    ['M EH1 R IY0', 'ˈmɛɹi'],
    ['B ER1 T', 'ˈbɜːt'],
    ['AH1 P', 'ˈʌp'],
    ['K EH1 N Y AH0', 'ˈkɛnjə'],
    ['AH0 N D R UW1', 'ənˈdɹuː'],
  ])('%s is %s', (arpabet, ipa) => {
    expect(arpabetToIpa(arpabet)).toBe(ipa);
  });

  it('refuses what is not ARPAbet', () => {
    expect(() => arpabetToIpa('SH QQ1')).toThrow('Not an ARPAbet phone: QQ1');
  });
});

describe('CmuLexicon', () => {
  it('looks names up in any case, and answers null for words it lacks', async () => {
    const lexicon = new CmuLexicon();
    expect(await lexicon.lookup('Catherine')).toBe('ˈkæθɚən');
    expect(await lexicon.lookup("O'BRIEN")).toBe('oʊˈbɹaɪɪn');
    expect(await lexicon.lookup('Zzyzxq')).toBeNull();
  });

  it('loads 134,000 entries without blocking the event loop for 50 ms at a time', async () => {
    const lexicon = new CmuLexicon();
    // CPU time this process spent between two ticks of a 1 ms timer: the work done in one turn of
    // the event loop (wall time would also count other test files' processes on the shared cores).
    let longest = 0;
    let last = process.cpuUsage();
    const ticker = setInterval(() => {
      const spent = process.cpuUsage(last);
      longest = Math.max(longest, (spent.user + spent.system) / 1000);
      last = process.cpuUsage();
    }, 1);
    const entries = await lexicon.load();
    clearInterval(ticker);
    expect(entries.size).toBeGreaterThan(125_000);
    expect(longest).toBeLessThan(50);
  });
});
