/**
 * Setup file of the integration and browser projects: a test whose requests received a response
 * the API document does not describe fails, naming each (tests/helpers/contract.ts).
 */
import { afterEach } from 'vitest';
import { takeContractViolations } from './contract.js';

afterEach(() => {
  const violations = takeContractViolations();
  if (violations.length > 0) {
    throw new Error(`Responses that do not match the API document:\n${[...new Set(violations)].join('\n')}`);
  }
});
