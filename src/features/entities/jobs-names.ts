export const CALLBACK_JOB = 'entities.callback';
