/**
 * A process tree from /proc stat lines (puppeteer/measure/proc-tree.ts), the one reader behind
 * Firefox's CPU and a device class's cgroup: the whole tree under a root, through a process that
 * is not the root's child (Firefox's forkserver), with names that hold spaces and parentheses.
 */
import { describe, expect, it } from 'vitest';
import { treeOf } from '../../puppeteer/measure/proc-tree.js';

/** A stat line as the kernel writes it, cut after the fields the tree reads. */
const stat = (pid: number, name: string, ppid: number) => `${pid} (${name}) S ${ppid} ${pid} ${pid} 0 -1 4194560`;

const STATS = new Map(
  [
    stat(1, 'init', 0),
    stat(100, 'firefox', 1),
    stat(101, 'forkserver', 100),
    stat(102, 'Web Content', 101),
    stat(103, 'Isolated (Web) Co', 101),
    stat(104, ') S 1', 100),
    stat(200, 'other', 1),
    stat(201, 'firefox', 200),
  ].map((line) => [Number(line.split(' ')[0]), line]),
);

describe('process tree', () => {
  it('holds the root and every process under it, parents before their children, and nothing else', () => {
    const tree = treeOf(STATS, 100);
    expect(tree.map((p) => p.pid)).toEqual([100, 101, 104, 102, 103]);
    expect(tree[0].stat).toBe(STATS.get(100));
  });

  it('is empty when the root is gone', () => {
    expect(treeOf(STATS, 999)).toEqual([]);
  });
});
