/** CPU arithmetic: cumulative counters differenced over a window, in % of one core. */
import { describe, expect, it } from 'vitest';
import { chromeCpu, hostCpu, parseProcStat, percentOfCore, processKind } from '../../results/cpu.js';

describe('processKind', () => {
  it('names utility processes by service, as SystemInfo.getProcessInfo reports them', () => {
    expect(processKind('browser')).toBe('browser');
    expect(processKind('renderer')).toBe('renderers');
    expect(processKind('network.mojom.NetworkService')).toBe('network');
    expect(processKind('GPU')).toBe('gpu');
    expect(processKind('gpu-process')).toBe('gpu');
    expect(processKind('storage.mojom.StorageService')).toBe('other');
    expect(processKind('utility')).toBe('other');
  });
});

describe('chromeCpu', () => {
  // Recorded from headless Chromium 156 (cpuTime in seconds, cumulative).
  const start = [
    { id: 100, type: 'browser', cpuTime: 1.25 },
    { id: 101, type: 'renderer', cpuTime: 3.5 },
    { id: 102, type: 'renderer', cpuTime: 0.2 },
    { id: 103, type: 'network.mojom.NetworkService', cpuTime: 0.75 },
    { id: 104, type: 'storage.mojom.StorageService', cpuTime: 0.01 },
    { id: 105, type: 'renderer', cpuTime: 9 },
  ];
  const end = [
    { id: 100, type: 'browser', cpuTime: 1.3 },
    { id: 101, type: 'renderer', cpuTime: 8.25 },
    { id: 102, type: 'renderer', cpuTime: 0.2 },
    { id: 103, type: 'network.mojom.NetworkService', cpuTime: 2.0 },
    { id: 104, type: 'storage.mojom.StorageService', cpuTime: 0.01 },
    { id: 106, type: 'renderer', cpuTime: 0.5 }, // started inside the window
  ];

  it('differences each process and sums by kind over a 5 s window', () => {
    const cpu = chromeCpu(start, end, 5);
    expect(cpu.browser).toBeCloseTo(1, 9);
    expect(cpu.renderers).toBeCloseTo(95 + 0 + 10, 9);
    expect(cpu.network).toBeCloseTo(25, 9);
    expect(cpu.other).toBeCloseTo(0, 9);
    expect(cpu.gpu).toBe(0);
    expect(cpu.total).toBeCloseTo(131, 9);
  });

  it('leaves out a process that ended inside the window, and never goes negative', () => {
    const cpu = chromeCpu(start, [{ id: 101, type: 'renderer', cpuTime: 3.0 }], 5);
    expect(cpu.renderers).toBe(0);
    expect(cpu.total).toBe(0);
  });

  it('reports 0 for an empty window rather than dividing by zero', () => {
    expect(percentOfCore(1, 0)).toBe(0);
  });
});

describe('host CPU from /proc/stat', () => {
  const stat = (user: number, system: number, idle: number, iowait = 0) =>
    `cpu  ${user} 0 ${system} ${idle} ${iowait} 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 12345\n`;

  it('parses the aggregate line', () => {
    expect(parseProcStat(stat(100, 50, 800, 50), 2)).toEqual({ busy: 150, total: 1000, cores: 2 });
    expect(parseProcStat('intr 1\n', 2)).toBeNull();
  });

  it('gives % of one core, so a saturated 2-core host reads 200', () => {
    const a = parseProcStat(stat(1000, 0, 1000), 2)!;
    expect(hostCpu(a, parseProcStat(stat(1150, 50, 1200), 2)!)).toBeCloseTo(100, 9); // half busy
    expect(hostCpu(a, parseProcStat(stat(1300, 100, 1000), 2)!)).toBeCloseTo(200, 9); // all busy
    expect(hostCpu(a, parseProcStat(stat(1000, 0, 1400, 100), 2)!)).toBe(0); // idle, iowait counts idle
    expect(hostCpu(a, a)).toBe(0);
  });
});
