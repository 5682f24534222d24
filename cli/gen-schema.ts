/** `npm run gen:schema`: writes protocol/scenarios.schema.json from protocol/scenario-schema.ts. */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { scenarioSchemaText } from '../protocol/scenario-schema.js';
import { runCommand } from './command.js';
import { ROOT } from './root.js';

const SCHEMA_FILE = path.join(ROOT, 'protocol/scenarios.schema.json');

runCommand('gen:schema', async () => {
  await writeFile(SCHEMA_FILE, scenarioSchemaText());
  process.stderr.write(`wrote ${path.relative(ROOT, SCHEMA_FILE)}\n`);
  return 0;
});
