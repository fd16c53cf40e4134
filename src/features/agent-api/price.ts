/** What one entity generation costs, and the purpose every payment intent of it is tagged with (P3). */
export const PRICE = { amountMinor: 100, amount: '1.00', currency: 'aud', displayCurrency: 'AUD', decimals: 2 } as const;
export const PURPOSE = 'entities.generate';
export const PAYMENT_DESCRIPTION = 'voicename agent profile (1 generation)';
