import { describe, expect, it } from 'vitest';
import { parseTaskStat, threadsCpu, type ThreadCpu } from '../../results/threads.js';
import { readThreads } from '../../puppeteer/measure/threads.js';

describe('parseTaskStat', () => {
  it('reads the thread id, its name and utime + stime in seconds', () => {
    const line = '4242 (DedicatedWorker thread) S 4200 4200 4200 0 -1 4194560 22600 0 0 0 1234 56 0 0 20 0 30 0 742586 5353472 1006';
    expect(parseTaskStat(line)).toEqual({ tid: 4242, name: 'DedicatedWorker thread', cpuSeconds: 12.9 });
  });

  it('takes a name holding spaces and parentheses whole', () => {
    expect(parseTaskStat('7 (a) b (c)) R 1 1 1 0 -1 0 0 0 0 0 300 100 0 0 20 0 1 0')).toMatchObject({ tid: 7, name: 'a) b (c)', cpuSeconds: 4 });
  });

  it('rejects what is not a stat line', () => {
    expect(parseTaskStat('')).toBeNull();
    expect(parseTaskStat('garbage')).toBeNull();
  });
});

describe('readThreads', () => {
  it.runIf(process.platform === 'linux')('lists this process’s threads, the main one under the process id', async () => {
    const threads = await readThreads(process.pid);
    expect(threads.find((t) => t.tid === process.pid)!.cpuSeconds).toBeGreaterThan(0);
  });

  it('gives nothing for a process that does not exist', async () => {
    expect(await readThreads(2 ** 30)).toEqual([]);
  });
});

describe('threadsCpu', () => {
  const t = (tid: number, name: string, cpuSeconds: number): ThreadCpu => ({ tid, name, cpuSeconds });
  it('groups the renderer’s threads and lists Workers in creation order, in % of one core', () => {
    const start = [t(100, 'chromium', 10), t(101, 'Chrome_ChildIOT', 1), t(105, 'DedicatedWorker thread', 2), t(103, 'ThreadPoolForeg', 0.5)];
    const end = [
      t(100, 'chromium', 12),
      t(101, 'Chrome_ChildIOT', 1.4),
      t(103, 'ThreadPoolForeg', 0.9),
      t(104, 'Compositor', 0.2),
      t(105, 'DedicatedWorker thread', 5.8),
      t(109, 'DedicatedWorker thread', 3), // started inside the window: counts from zero
      t(110, 'Media', 0.1),
    ];
    const cpu = threadsCpu(100, start, end, 4);
    expect(cpu.main).toBeCloseTo(50);
    expect(cpu.io).toBeCloseTo(10);
    expect(cpu.pool).toBeCloseTo(10);
    expect(cpu.compositor).toBeCloseTo(5);
    expect(cpu.other).toBeCloseTo(2.5);
    expect(cpu.workers.map((w) => Math.round(w))).toEqual([95, 75]);
  });
});
