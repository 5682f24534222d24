/**
 * Measures the in-page decoding ceilings (JSON.parse, and each other encoding a round uses) at
 * each batch size, on one fresh lab page per round:
 * the machine's speed drifts (by 2× between days here), so each round measures its own and
 * every repeat is related to the ceiling of its round.
 */
import type { Page } from 'puppeteer-core';
import type { ParseCeiling } from '../../protocol/page-api.js';
import { deviceOf, type CeilingNeed } from '../../results/ceilings.js';
import type { BrowserSlot } from '../browser/slot.js';
import { DeviceEmulator, type AppliedDevice } from '../device/emulator.js';
import { PushlabError } from '../../protocol/errors.js';
import { openLabPage } from './page.js';

/**
 * Timed parsing per batch size, ms, after the page's own 200 ms warm-up and never fewer than
 * two passes over the sample (web/lab/ceiling.ts): hundreds of thousands of events at any
 * batch size. Against the 1,000 ms it was (after one warm-up pass), in interleaved pairs under
 * the lock, the median ratio was 1.03, 0.99, 0.99 and 1.02 at batch 20, 100, 400 and 1,000
 * (8, 8, 8 and 6 pairs), 1.03, 1.03 and 1.11 at 20, 400 and 2,000 in a second series (5 pairs),
 * each within the 1,000 ms figures' own spread (11–50%); each batch size of each round takes
 * ~0.5 s less (batch 10,000: two passes either way).
 */
export const CEILING_MS = 300;

/**
 * Calibrations tried for one class's ceilings. Once in CI (2026-11-28) the whole-browser class's
 * readings did not settle for its ceiling and did for its point a minute later, which was then
 * read against no ceiling of its class: a second try costs one more calibration (10–30 s), and
 * only when the first did not settle.
 */
const CALIBRATION_ATTEMPTS = 2;

/**
 * `browser`: a puppeteer Browser, or a BrowserSlot (which opens tabs in its own context). Needs
 * under a device class are measured in the slowed browser (`devices`, the run's; `hostId`, the
 * browser's id in the report), in a tab of their own: a main-thread class is set on its tab.
 */
export async function measureCeilings(
  browser: { newPage(): Promise<Page> },
  serverUrl: string,
  needs: readonly CeilingNeed[],
  signal?: AbortSignal,
  devices?: { emulator: DeviceEmulator; slot: BrowserSlot; hostId: string },
): Promise<ParseCeiling[]> {
  const out: ParseCeiling[] = [];
  // Needs come grouped by device (results/ceilings.ts ceilingNeeds): one tab per group.
  const groups = new Map<string, CeilingNeed[]>();
  for (const n of needs) {
    const k = `${n.device ?? ''}/${n.throttle ?? ''}`;
    groups.set(k, [...(groups.get(k) ?? []), n]);
  }
  // Full speed last: a class's calibration (10–30 s of benchmark in this browser) warms it, and
  // a fresh browser's first full-speed ceiling read 25–45% low here, which made every class's
  // ceiling look too little slowed against it (e2e-device: 2.4× the calibrated factor in CI).
  const ordered = [...groups.values()].sort((a, b) => Number(deviceOf(a[0]).device === undefined) - Number(deviceOf(b[0]).device === undefined));
  for (const group of ordered) {
    const device = deviceOf(group[0]);
    if (device.device !== undefined && !devices) throw new Error(`a ceiling as ${device.device} needs the run's device emulator`);
    // The page loads at full speed, as a point's does (measure/repeat.ts): the class slows the decoding, not the tab's start.
    if (devices) await devices.emulator.enter(devices.slot, {}, devices.hostId);
    const page = await browser.newPage();
    try {
      const session = devices && device.throttle === 'main-thread' ? await page.createCDPSession() : null;
      const api = await openLabPage(page, serverUrl);
      let applied: AppliedDevice | undefined = null;
      for (let attempt = 1; devices && attempt <= CALIBRATION_ATTEMPTS; attempt++) {
        try {
          applied = await devices.emulator.enter(devices.slot, device, devices.hostId);
          break;
        } catch (err) {
          if (!(err instanceof PushlabError && err.code === 'PUSHLAB_NO_DEVICE')) throw err;
          // Readings that would not settle are the moment's, and the emulator calibrates again when asked.
          if (err.transient && attempt < CALIBRATION_ATTEMPTS) continue;
          // A class this machine cannot make: its points fail with the same coded reason, and are read against no ceiling.
          applied = undefined;
          break;
        }
      }
      if (applied === undefined) continue;
      await DeviceEmulator.onTab(session, applied);
      for (const { batch, encoding } of group) {
        signal?.throwIfAborted();
        const c = await api.evaluate((p, b, ms, e) => p.parseCeiling(b, ms, e), batch, CEILING_MS, encoding);
        out.push({ ...c, ...device });
      }
    } finally {
      await page.close().catch(() => undefined);
    }
  }
  return out;
}
