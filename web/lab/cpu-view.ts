/**
 * The CPU readings `npm run lab` pushes into the page about once a second (a page cannot read
 * its own CPU): shown as numbers and fed to the stacked CPU chart. Opened any other way, the
 * page says where the readings come from.
 */
import type { CpuReading } from '../../protocol/page-api.js';
import type { LiveCharts } from './chart.js';

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : `${Math.round(x)}%`);

export class CpuView {
  latest: CpuReading | null = null;

  constructor(
    private readonly host: HTMLElement,
    /** The live charts, loaded on first use (main.ts): readings come only under `npm run lab`. */
    private readonly charts: () => Promise<LiveCharts>,
  ) {
    host.textContent = 'CPU readings need `npm run lab`: the driver reads them from Chrome (CDP) and the OS once a second and pushes them here.';
  }

  show(r: CpuReading): void {
    this.latest = r;
    const t = r.threads;
    const items: [string, string][] = [
      ['tab renderer', pct(r.renderer)],
      ['main thread busy', pct(r.mainThreadBusy)],
      ...(t ? ([['main thread CPU', pct(t.main)]] as [string, string][]) : []),
      ...(t?.workers ?? []).map((w, i): [string, string] => [`Worker ${i + 1}`, pct(w)]),
      ['network service', pct(r.network)],
      ['browser', pct(r.browser)],
      ['GPU', pct(r.gpu)],
      ['other Chrome', pct(r.otherChrome)],
      ['server', pct(r.server)],
      ['host', r.host === null ? '–' : `${Math.round(r.host)}% of ${r.cores * 100}%`],
    ];
    this.host.replaceChildren(
      ...items.map(([label, value]) => {
        const el = document.createElement('span');
        el.append(`${label} `, Object.assign(document.createElement('b'), { textContent: value }));
        return el;
      }),
      Object.assign(document.createElement('small'), { textContent: `% of one core over the last ${r.intervalSec.toFixed(1)} s` }),
    );
    // Stacked: the tab's main thread, the rest of its renderer, Chrome's other processes, the
    // server, and whatever else the host ran (never below 0: the sources are read at slightly different instants).
    const renderer = r.renderer ?? 0;
    const main = t ? Math.min(t.main, renderer) : renderer;
    // A process the engine has not (a Firefox's socket or GPU process) draws nothing: its work is in another's.
    const parts = [main, renderer - main, r.network ?? 0, r.browser ?? 0, r.gpu ?? 0, r.server ?? 0];
    const known = parts.reduce((a, b) => a + b, 0);
    const rest = r.host === null ? (r.otherChrome ?? 0) : Math.max(0, r.host - known);
    const at = performance.now() / 1000;
    void this.charts().then((charts) => {
      charts.addCpu(at, [...parts, rest]);
      charts.draw();
    });
  }
}
