/**
 * Fills the lab form's choices and ranges from protocol/, so a new transport or a changed
 * limit appears in the form without editing index.html.
 */
import { LIMITS, type Range } from '../../protocol/limits.js';
import { PACES } from '../../protocol/pace.js';
import { ENCODINGS, PARSE_MODES, RENDER_MODES, TRANSPORTS } from '../../protocol/wire.js';

const CHOICES: Record<string, readonly string[]> = { transport: TRANSPORTS, render: RENDER_MODES, parse: PARSE_MODES, encoding: ENCODINGS, pace: PACES };
const RANGES: Record<string, Range> = { batch: LIMITS.batch, concurrency: LIMITS.concurrency, intervalMs: LIMITS.intervalMs, workers: LIMITS.workers };

export function fillFormFields(form: HTMLFormElement): void {
  for (const [name, values] of Object.entries(CHOICES)) {
    const field = form.elements.namedItem(name);
    if (field instanceof HTMLSelectElement) field.replaceChildren(...values.map((v) => new Option(v, v)));
  }
  for (const [name, r] of Object.entries(RANGES)) {
    const field = form.elements.namedItem(name);
    if (!(field instanceof HTMLInputElement)) continue;
    field.min = String(r.min);
    field.max = String(r.max);
    field.step = r.integer ? '1' : 'any';
  }
}
