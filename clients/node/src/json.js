/**
 * Reads one string field at the top level of a JSON object, strictly (as the platform does): the document must be
 * one well-formed JSON object with nothing but white space after it, and a key repeated in any object is an error,
 * since two readers could otherwise see different values for the same signed field.
 */

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

class JsonReader {
  constructor(text) {
    this.s = text;
    this.i = 0;
  }

  error(what) {
    return new SyntaxError(`${what} at character ${this.i}`);
  }

  ws() {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else break;
    }
  }

  value(depth) {
    if (depth > 1000) throw this.error('The JSON nests too deeply');
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(depth + 1);
    if (c === '[') return this.array(depth + 1);
    if (c === '"') return this.string();
    if (c === 't') return this.literal('true', true);
    if (c === 'f') return this.literal('false', false);
    if (c === 'n') return this.literal('null', null);
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    throw this.error(c === undefined ? 'Unexpected end of JSON' : `Unexpected character '${c}'`);
  }

  literal(word, v) {
    if (this.s.startsWith(word, this.i)) {
      this.i += word.length;
      return v;
    }
    throw this.error('Unexpected token');
  }

  number() {
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.s.slice(this.i, this.i + 1100));
    if (!m) throw this.error('Malformed number');
    if (m[0].length > 1000) throw this.error('Number longer than 1000 characters');
    this.i += m[0].length;
    return Number(m[0]);
  }

  string() {
    const s = this.s;
    this.i++; // opening quote
    let out = '';
    let start = this.i;
    for (;;) {
      if (this.i >= s.length) throw this.error('Unterminated string');
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        out += s.slice(start, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) throw this.error('Control character in a string');
      if (c === 0x5c) {
        out += s.slice(start, this.i);
        const e = s[this.i + 1];
        const simple = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' }[e];
        if (simple !== undefined) {
          out += simple;
          this.i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(this.i + 2, this.i + 6))) {
          out += String.fromCharCode(parseInt(s.slice(this.i + 2, this.i + 6), 16));
          this.i += 6;
        } else {
          throw this.error('Bad escape in a string');
        }
        start = this.i;
      } else {
        this.i++;
      }
    }
  }

  array(depth) {
    this.i++;
    const out = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') throw this.error("Expected ',' or ']'");
    }
  }

  object(depth) {
    this.i++;
    const out = new Map();
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') throw this.error('Expected a field name');
      const name = this.string();
      if (out.has(name)) throw this.error(`Duplicate field '${name}'`);
      this.ws();
      if (this.s[this.i++] !== ':') throw this.error("Expected ':'");
      out.set(name, this.value(depth));
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') throw this.error("Expected ',' or '}'");
    }
  }
}

/**
 * @param {Uint8Array} bytes a UTF-8 JSON document
 * @param {string} field
 * @returns {string | undefined} the field's value when present and a string; undefined when absent
 * @throws {TypeError | SyntaxError} when the document is not one strict JSON object, or the field is not a string
 */
export function topLevelString(bytes, field) {
  let text;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new SyntaxError('The document is not valid UTF-8');
  }
  const r = new JsonReader(text);
  r.ws();
  if (r.s[r.i] !== '{') {
    throw new TypeError('The document is not a JSON object');
  }
  const obj = r.value(0);
  r.ws();
  if (r.i !== r.s.length) {
    throw new SyntaxError('There is data after the JSON object');
  }
  if (!obj.has(field)) {
    return undefined;
  }
  const v = obj.get(field);
  if (typeof v !== 'string') {
    throw new TypeError(`The field '${field}' is not a string`);
  }
  return v;
}
