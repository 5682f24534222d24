/**
 * What wakes the hub for its next tick. Node's timers count whole milliseconds from a loop
 * time that can be up to 1 ms stale: a bare 1 ms `setTimeout` loop on the 2-core VM woke
 * p50 0.56 ms and p99 1.1 ms after each grid point, whatever the rounding of its delay.
 *
 * `worker` sleeps in a Worker on `Atomics.wait`, whose timeout is not rounded to the
 * millisecond, and wakes this thread with a message (an eventfd write, which ends libuv's
 * poll at once). Measured in the same loop: p50 0.12 ms, p99 0.26–0.79 ms (with another
 * process spinning on one core), for about 4% of a core more than the timer. In bench:server
 * at 50 × 10 it brought SSE's tick lateness p99 from 1.4–2.5 ms to 0.6–1.0 ms, but WS's only
 * to 1.4–3.6 ms (its many socket completions share the loop), for 3–10% of a core more: so
 * `timer` stays the default, since the server's CPU is taken from the tab under test. Lateness
 * does enter the page's event age: each batch carries when it was due (`dueAt`) beside its write
 * (`sentAt`), and ages count from the due time (protocol/age.ts); transit, from `sentAt`, leaves it out.
 *
 * Protocol: this thread writes the due time, then bumps a generation counter and notifies.
 * The Worker posts at most one message per generation, so a tick that re-arms always gets
 * a fresh wake-up and a stale one is recognised by its generation.
 */
import { Worker } from 'node:worker_threads';

export const CLOCKS = ['timer', 'worker'] as const;
export type ClockKind = (typeof CLOCKS)[number];

export interface WakeClock {
  /** Calls the tick once at about `atMs` (performance.now() time); replaces any earlier request. */
  wakeAt(atMs: number): void;
  /** Drops a pending request. */
  cancel(): void;
  /** Releases the clock for good. */
  close(): void;
}

export function createClock(kind: ClockKind, tick: () => void): WakeClock {
  return kind === 'worker' ? new WorkerClock(tick) : new TimerClock(tick);
}

export class TimerClock implements WakeClock {
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly tick: () => void) {}

  wakeAt(atMs: number): void {
    this.cancel();
    // An early wake-up finds nothing due and asks again; Node turns a 0 ms delay into 1 ms.
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.tick();
      },
      Math.max(0, Math.floor(atMs - performance.now())),
    );
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  close(): void {
    this.cancel();
  }
}

// Shared slots: Int32 [0] generation; Float64 [1] due time on process.hrtime's clock, in ms
// (NaN: nothing asked; STOP: exit). Both threads read the same monotonic clock that way;
// their performance.now() origins differ.
const GEN = 0;
const STOP = -1;
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const gen = new Int32Array(workerData, 0, 1);
const due = new Float64Array(workerData, 8, 1);
const now = () => Number(process.hrtime.bigint()) / 1e6;
let posted = -1;
for (;;) {
  const g = Atomics.load(gen, 0);
  const at = due[0];
  if (at === ${STOP}) break;
  if (g === posted || Number.isNaN(at)) { Atomics.wait(gen, 0, g); continue; }
  const wait = at - now();
  // Below ~20 µs a sleep costs more than it saves.
  if (wait > 0.02) { Atomics.wait(gen, 0, g, wait); continue; }
  posted = g;
  parentPort.postMessage(g);
}
`;

export class WorkerClock implements WakeClock {
  private readonly shared = new SharedArrayBuffer(16);
  private readonly gen = new Int32Array(this.shared, 0, 1);
  private readonly due = new Float64Array(this.shared, 8, 1);
  /** process.hrtime in ms minus performance.now(), read once. */
  private readonly hrOffsetMs = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  private readonly worker: Worker;

  constructor(tick: () => void) {
    this.due[0] = Number.NaN;
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.shared });
    // Every request and cancel bumps the generation, so a message for an older one is stale.
    this.worker.on('message', (g: number) => {
      if (g === Atomics.load(this.gen, GEN)) tick();
    });
    this.worker.on('error', (err) => {
      throw new Error(`the pacing clock's Worker failed: ${err.message}`);
    });
    // The server's sockets keep the process alive; the clock must not.
    this.worker.unref();
  }

  wakeAt(atMs: number): void {
    this.set(atMs + this.hrOffsetMs);
  }

  cancel(): void {
    this.set(Number.NaN);
  }

  close(): void {
    this.set(STOP);
    void this.worker.terminate();
  }

  private set(due: number): void {
    this.due[0] = due;
    Atomics.add(this.gen, GEN, 1);
    Atomics.notify(this.gen, GEN);
  }
}
