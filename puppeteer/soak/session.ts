/**
 * A soak run by a command (`npm run soak`, `npm run advise -- --soak`): runner.ts streaming, the
 * report's recorder saving the soak after every sample (atomically, report.json then report.html,
 * as a sweep saves after every repeat), so Ctrl-C or a crash leaves the samples taken so far in a
 * valid report. Progress lines go to `log` (stderr): one a minute, and the reconnect.
 */
import type { Soak } from '../../protocol/soak.js';
import { formatEps, formatMs } from '../../results/format.js';
import type { ReportRecorder } from '../report/recorder.js';
import { runSoak, type SoakOptions } from './runner.js';

/** What runSoak takes, less its update hook (this saves every update), with where to save and log. */
export interface SoakSession extends Omit<SoakOptions, 'onUpdate'> {
  recorder: ReportRecorder;
  log(line: string): void;
}

/** Runs the soak, saving it into the recorder's report as it goes; the caller says its judgement (results/soak.ts soakLines). */
export async function soakAndSave(o: SoakSession): Promise<Soak> {
  let lastMinute = 0;
  o.log(`soak: ${o.source}, ${o.point.id}, for ${Math.round(o.durationSec)} s; a reconnect is forced half-way`);
  const soak = await runSoak({
    ...o,
    onUpdate: async (s, what) => {
      o.recorder.setSoak(s);
      await o.recorder.save();
      const last = s.samples.at(-1);
      if (what === 'sample' && last && Math.floor(last.atSec / 60) > lastMinute) {
        lastMinute = Math.floor(last.atSec / 60);
        o.log(
          `  ${lastMinute} min: ${formatEps(last.eventsPerSec)}, age p99 ${formatMs(last.ageP99Ms)}, input p99 ${formatMs(last.inputDelayP99Ms)}, heap ${last.heapUsedMb?.toFixed(1) ?? '—'} MB`,
        );
      }
      if (what === 'reconnect' && s.reconnect) {
        const r = s.reconnect;
        o.log(
          `  reconnect at ${Math.round(r.atSec)} s: ${r.dropped} stream${r.dropped === 1 ? '' : 's'} dropped, ${r.recoverySec === null ? 'not all back' : `all back in ${r.recoverySec.toFixed(1)} s`}, ${r.lostEvents} events lost`,
        );
      }
    },
  });
  return soak;
}
