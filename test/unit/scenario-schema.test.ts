/** The committed scenarios.schema.json is what protocol/scenario-schema.ts generates, and follows protocol/'s enums and limits. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../protocol/limits.js';
import { parseScenarioFile } from '../../protocol/scenario.js';
import { scenarioSchemaText } from '../../protocol/scenario-schema.js';
import { PARSE_MODES, RENDER_MODES, TRANSPORTS } from '../../protocol/wire.js';

const committed = readFileSync(path.resolve(import.meta.dirname, '..', '..', 'protocol/scenarios.schema.json'), 'utf8');

describe('protocol/scenarios.schema.json', () => {
  it('is up to date (run `npm run gen:schema` after changing protocol/scenario-schema.ts, limits.ts or wire.ts)', () => {
    expect(committed).toBe(scenarioSchemaText());
  });

  it('accepts every value of every enum, and each limit itself, and nothing past a limit', () => {
    const file = (fields: Record<string, unknown>) => ({ scenarios: [{ id: 'a', batch: 1, concurrency: 1, ...fields }] });
    expect(() => parseScenarioFile(file({ transport: [...TRANSPORTS], render: [...RENDER_MODES], parse: [...PARSE_MODES] }))).not.toThrow();
    for (const [name, r] of Object.entries(LIMITS)) {
      expect(() => parseScenarioFile(file({ [name]: r.min })), `${name} = min`).not.toThrow();
      expect(() => parseScenarioFile(file({ [name]: r.max })), `${name} = max`).not.toThrow();
      expect(() => parseScenarioFile(file({ [name]: r.max + 1 })), `${name} > max`).toThrow(`must be ≤ ${r.max}`);
    }
  });
});
