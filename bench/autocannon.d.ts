// autocannon ships no types; the benchmark uses a small part of it loosely.
declare module 'autocannon';
