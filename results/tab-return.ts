/**
 * A hidden-tab point in words (protocol/tab-state.ts): whether its tab stayed hidden through
 * each window, and what the page had not yet taken when it came back to the foreground and how
 * long it took to take it, over its repeats. One sentence, for the terminal's section about
 * hidden tabs and the viewer's point detail. Pure.
 */
import type { PointResult } from '../protocol/report.js';
import type { MeasuredRepeat, TabStateFigures } from '../protocol/repeat-figures.js';
import { formatCount, formatMs } from './format.js';
import { median } from './stats.js';

/**
 * `hidden through the window in 3/3 repeats; back in front: 1,240 events behind, caught up in
 * 41 ms (medians)`, with the repeats that did not catch up; null for a point in the foreground
 * or with no measured repeat that recorded its tab.
 */
export function tabReturnText(r: Pick<PointResult, 'point' | 'repeats'>): string | null {
  if (r.point.tab === undefined) return null;
  const tabs = r.repeats.flatMap((rep) => (rep.status === 'ok' && rep.tabState ? [(rep as MeasuredRepeat & { tabState: TabStateFigures }).tabState] : []));
  if (!tabs.length) return null;
  const hidden = tabs.filter((t) => t.visibilityAtStart === 'hidden' && t.visibilityAtEnd === 'hidden' && t.visibilityChanges === 0).length;
  const backlogs = tabs.flatMap((t) => (t.return.backlogEvents === null ? [] : [t.return.backlogEvents]));
  const caught = tabs.flatMap((t) => (t.return.catchUpMs === null ? [] : [t.return.catchUpMs]));
  const behind = backlogs.length ? `${formatCount(median(backlogs))} events behind` : 'backlog unknown (a connection reopened)';
  const catchUp = caught.length ? `caught up in ${formatMs(median(caught))}` : null;
  const missed = tabs.length - caught.length;
  const notCaught = missed ? `${missed} did not catch up within ${tabs[0].return.waitedSec} s` : null;
  const back = [behind, catchUp, notCaught].filter((x) => x !== null).join(', ');
  return `hidden through the window in ${hidden}/${tabs.length} repeat${tabs.length === 1 ? '' : 's'}; back in front: ${back}${tabs.length > 1 ? ' (medians)' : ''}`;
}

/** One line per hidden-tab point: `<id>: <tabReturnText>`. */
export function tabReturnLines(points: readonly Pick<PointResult, 'point' | 'repeats'>[]): string[] {
  return points.flatMap((r) => {
    const text = tabReturnText(r);
    return text === null ? [] : [`${r.point.id}: ${text}`];
  });
}
