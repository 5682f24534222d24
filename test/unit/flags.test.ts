import { describe, expect, it } from 'vitest';
import { PushlabError } from '../../protocol/errors.js';
import { type FlagSpec, helpText, parseFlags } from '../../protocol/flags.js';

const SPECS = {
  transport: { type: 'string', default: 'ws', help: 'which transport', choices: ['ws', 'sse'] },
  out: { type: 'string', default: 'reports', help: 'output folder' },
  scenario: { type: 'list', default: [], help: 'scenario ids' },
  browsers: { type: 'list', default: ['chrome'], help: 'browsers to run' },
  port: { type: 'integer', default: 8443, min: 0, max: 65535, help: 'TCP port' },
  'send-buffer-mib': { type: 'number', default: 4, min: 0.0625, max: 1024, help: 'send bound' },
  headless: { type: 'boolean', default: true, help: 'hide the browser' },
  json: { type: 'boolean', default: false, help: 'print JSON' },
} as const satisfies Record<string, FlagSpec>;

const parse = (...argv: string[]) => parseFlags(SPECS, argv, 'npm run sweep --');

function fails(argv: string[], message: string): void {
  let error: unknown;
  try {
    parseFlags(SPECS, argv, 'x');
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(PushlabError);
  expect((error as PushlabError).code).toBe('PUSHLAB_BAD_FLAG');
  expect((error as PushlabError).message).toContain(message);
}

describe('parseFlags number syntax', () => {
  it('takes plain decimals only', () => {
    fails(['--port', '0x10'], "--port must be an integer from 0 to 65535; got '0x10'");
    fails(['--port='], '--port must be an integer');
  });
});

describe('parseFlags', () => {
  it('returns every default when given nothing', () => {
    expect(parse()).toEqual({
      help: false,
      transport: 'ws',
      out: 'reports',
      scenario: [],
      browsers: ['chrome'],
      port: 8443,
      'send-buffer-mib': 4,
      headless: true,
      json: false,
    });
  });

  it('takes values as the next argument or after =', () => {
    const flags = parse('--port', '0', '--send-buffer-mib=0.5', '--out', 'a=b', '--transport=sse');
    expect(flags.port).toBe(0);
    expect(flags['send-buffer-mib']).toBe(0.5);
    expect(flags.out).toBe('a=b');
    expect(flags.transport).toBe('sse');
  });

  it('lets a later flag win', () => {
    expect(parse('--port', '1', '--port', '2').port).toBe(2);
  });

  it('splits lists on commas, trimming and dropping empty items', () => {
    expect(parse('--scenario', 'smoke, ws-batch,,sse').scenario).toEqual(['smoke', 'ws-batch', 'sse']);
    expect(parse('--browsers=a').browsers).toEqual(['a']);
  });

  it('does not share the default list between results', () => {
    const first = parse();
    first.browsers.push('firefox');
    expect(parse().browsers).toEqual(['chrome']);
    expect(SPECS.browsers.default).toEqual(['chrome']);
  });

  it('reads booleans as bare flags or =true/=false', () => {
    expect(parse('--json').json).toBe(true);
    expect(parse('--headless=false').headless).toBe(false);
    expect(parse('--json=true').json).toBe(true);
  });

  it('sets help for --help and -h, and keeps parsing', () => {
    expect(parse('--help').help).toBe(true);
    expect(parse('-h', '--port', '5')).toMatchObject({ help: true, port: 5 });
  });

  it('accepts a negative-looking value and an empty string after =', () => {
    const specs = { offset: { type: 'number', default: 0, min: -10, max: 10, help: 'offset' } } as const;
    expect(parseFlags(specs, ['--offset', '-5'], 'x').offset).toBe(-5);
    expect(parse('--out=').out).toBe('');
  });

  it('rejects unknown flags, listing the known ones', () => {
    fails(['--prot', '1'], 'unknown flag --prot; known flags: --transport, --out, --scenario, --browsers, --port, --send-buffer-mib, --headless, --json');
  });

  it('rejects positional arguments and single-dash flags', () => {
    fails(['smoke'], "unexpected argument 'smoke'; flags look like --name value (see --help)");
    fails(['-p', '1'], "unexpected argument '-p'; flags look like --name value (see --help)");
    fails(['--Port', '1'], "unexpected argument '--Port'; flags look like --name value (see --help)");
  });

  it('rejects a missing value, including one swallowed by the next flag', () => {
    fails(['--port'], '--port needs a value (integer)');
    fails(['--out', '--json'], '--out needs a value (string)');
  });

  it('rejects a value outside the choices', () => {
    fails(['--transport', 'wss'], "--transport must be one of ws, sse; got 'wss'");
  });

  it('checks every list item against its choices or integer bounds', () => {
    const specs = {
      transport: { type: 'list', default: ['ws'], choices: ['ws', 'sse'], help: 'transports' },
      batch: { type: 'list', default: ['50'], integers: { min: 1, max: 10_000 }, help: 'batch sizes' },
    } as const satisfies Record<string, FlagSpec>;
    expect(parseFlags(specs, ['--transport', 'sse,ws', '--batch', '1,10000'], 'x')).toMatchObject({ transport: ['sse', 'ws'], batch: ['1', '10000'] });
    expect(() => parseFlags(specs, ['--transport', 'ws,wss'], 'x')).toThrow("--transport takes a comma-separated list of ws, sse; got 'wss'");
    for (const bad of ['0', '10001', '1.5', 'abc', '-3']) {
      expect(() => parseFlags(specs, ['--batch', `50,${bad}`], 'x')).toThrow(`--batch takes a comma-separated list of integers from 1 to 10000; got '${bad}'`);
    }
  });

  it('rejects an empty list', () => {
    fails(['--scenario', ' , '], "--scenario needs at least one value; got ' , '");
  });

  it.each(['1.5', 'abc', '', ' ', '65536', '-1', '0x'])("rejects --port '%s'", (raw) => {
    fails([`--port=${raw}`], `--port must be an integer from 0 to 65535; got '${raw}'`);
  });

  it.each(['0.01', '2000', 'Infinity', 'four'])("rejects --send-buffer-mib '%s'", (raw) => {
    fails(['--send-buffer-mib', raw], `--send-buffer-mib must be a number from 0.0625 to 1024; got '${raw}'`);
  });

  it('rejects a value given to a boolean other than true/false', () => {
    fails(['--json=yes'], "--json takes no value or true/false; got 'yes'");
  });

  // Inherited names (Object.prototype's) are not flags.
  it('rejects --constructor as an unknown flag', () => {
    fails(['--constructor=1'], 'unknown flag --constructor');
  });
});

describe('helpText', () => {
  it('lists each flag with its argument, help, default, range and choices', () => {
    const specs = {
      transport: { type: 'string', default: 'ws', help: 'which transport', choices: ['ws', 'sse'] },
      scenario: { type: 'list', default: [], help: 'scenario ids' },
      browsers: { type: 'list', default: ['chrome', 'edge'], help: 'browsers' },
      port: { type: 'integer', default: 8443, min: 0, max: 65535, help: 'TCP port' },
      json: { type: 'boolean', default: false, help: 'print JSON' },
    } as const satisfies Record<string, FlagSpec>;
    expect(helpText(specs, 'npm run sweep --')).toBe(
      [
        'usage: npm run sweep -- [flags]',
        '',
        '  --transport <string>',
        '      which transport (default: ws, one of ws, sse)',
        '  --scenario <a,b,…>',
        '      scenario ids (default: none)',
        '  --browsers <a,b,…>',
        '      browsers (default: chrome,edge)',
        '  --port <integer>',
        '      TCP port (default: 8443, 0…65535)',
        '  --json',
        '      print JSON (default: false)',
        '  --help',
        '      print this help',
        '',
      ].join('\n'),
    );
  });

  it('mentions every declared flag', () => {
    const text = helpText(SPECS, 'x');
    for (const name of Object.keys(SPECS)) expect(text).toContain(`--${name}`);
  });
});
