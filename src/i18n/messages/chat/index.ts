import ar from './ar.js';
import de from './de.js';
import en from './en.js';
import es from './es.js';
import fr from './fr.js';
import zhHans from './zh-Hans.js';

export const chat = { en, es, fr, de, 'zh-Hans': zhHans, ar };
