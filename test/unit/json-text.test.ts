/** JSON syntax errors located by line and column, for scenario files and reports. */
import { describe, expect, it } from 'vitest';
import { firstSyntaxError, parseJsonText, syntaxErrorText } from '../../protocol/json-text.js';

const error = (text: string) => {
  const r = parseJsonText(text);
  if (r.ok) throw new Error(`parsed: ${text}`);
  return syntaxErrorText(r.error);
};

describe('parseJsonText', () => {
  it('returns the value of valid JSON', () => {
    expect(parseJsonText('{"a": [1, 2.5e3, -0, "x\\u00e9\\n", true, false, null]}')).toEqual({
      ok: true,
      value: { a: [1, 2500, -0, 'xé\n', true, false, null] },
    });
  });

  it.each([
    ['{\n  "a": 1\n  "b": 2\n}', "line 3, column 3: expected ',' or '}' after a property value, found \"\\\"\""],
    ['{\n  "a": 1,\n}', "line 3, column 1: a comma before '}' (JSON allows no trailing comma)"],
    ['[1, 2,]', "line 1, column 7: a comma before ']' (JSON allows no trailing comma)"],
    ['{"a": x}', 'line 1, column 7: expected a value, found "x"'],
    ['{"a" 1}', 'line 1, column 6: expected \':\' after a property name, found "1"'],
    ["{'a': 1}", 'line 1, column 2: expected a property name in double quotes, found "\'"'],
    ['{"a": "b\nc"}', 'line 1, column 9: a raw control character in a string (a line break); escape it'],
    ['{"a": "\\x"}', 'line 1, column 9: a bad escape \\x in a string'],
    ['{"a": "\\u12"}', 'line 1, column 9: \\u must be followed by 4 hex digits'],
    ['{"a": 01}', "line 1, column 8: expected ',' or '}' after a property value, found \"1\""],
    ['{"a": 1.}', 'line 1, column 9: expected a digit, found "}"'],
    ['{"a": tru}', 'line 1, column 10: expected true, found "}"'],
    ['', 'line 1, column 1: expected a value, found the end of the text'],
    ['{"a": "b', 'line 1, column 9: a string is not closed (missing ")'],
    ['{"a": 1} x', 'line 1, column 10: unexpected "x" after the JSON value'],
    ['\uFEFF{}', 'line 1, column 1: expected a value, found a byte-order mark (save the file as UTF-8 without one)'],
    ['{\r\n  "a": [1,\r\n  2 3]}', "line 3, column 5: expected ',' or ']' after an array element, found \"3\""],
  ])('%j → %s', (text, expected) => {
    expect(error(text)).toBe(expected);
  });

  it('finds no error where JSON.parse finds none', () => {
    for (const text of ['0', '"x"', '[]', '{}', ' [ {"a" : [ ] } ] ', '-1.5E-3', '"\\ud83d\\ude00"']) {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(firstSyntaxError(text), text).toBeNull();
    }
  });
});
