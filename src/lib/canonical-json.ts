/**
 * JSON with object keys sorted at every level, so equal values always give equal text. The same
 * text as `JSON.stringify` of a key-sorted copy (stored request hashes stay valid), but built with
 * an explicit stack: no input, however deep, can overflow the call stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // Work items: a value to write, or literal text (separators and closing brackets).
  const stack: ({ text: string } | { value: unknown; inArray: boolean })[] = [{ value, inArray: false }];
  while (stack.length > 0) {
    const item = stack.pop() as { text: string } | { value: unknown; inArray: boolean };
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const current = toJsonValue(item.value);
    if (Array.isArray(current)) {
      const work: typeof stack = [{ text: '[' }];
      current.forEach((element, i) => {
        if (i > 0) work.push({ text: ',' });
        work.push({ value: element, inArray: true });
      });
      work.push({ text: ']' });
      stack.push(...work.reverse());
    } else if (current !== null && typeof current === 'object') {
      const record = current as Record<string, unknown>;
      const work: typeof stack = [{ text: '{' }];
      let first = true;
      for (const key of orderedKeys(record)) {
        if (!isSerializable(toJsonValue(record[key]))) continue;
        work.push({ text: `${first ? '' : ','}${JSON.stringify(key)}:` });
        work.push({ value: record[key], inArray: false });
        first = false;
      }
      work.push({ text: '}' });
      stack.push(...work.reverse());
    } else if (isSerializable(current)) {
      out.push(JSON.stringify(current));
    } else {
      // What JSON.stringify does with undefined, functions and symbols: null in arrays, else nothing.
      out.push(item.inArray ? 'null' : '');
    }
  }
  return out.join('');
}

/**
 * Keys sorted, in the order an object built by inserting them sorted enumerates them (integer-like
 * keys first, ascending): the order the earlier recursive version produced.
 */
function orderedKeys(record: Record<string, unknown>): string[] {
  const order: Record<string, true> = {};
  for (const key of Object.keys(record).sort()) order[key] = true;
  return Object.keys(order);
}

/** `toJSON` first, as JSON.stringify does (a Date becomes its ISO string). */
function toJsonValue(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return (value as { toJSON: () => unknown }).toJSON();
  }
  return value;
}

const isSerializable = (value: unknown) => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
