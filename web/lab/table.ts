/**
 * The streaming table: a ring of the last N rows and a virtualised view of it (newest
 * first). Only the rows in view exist in the DOM, and the view redraws only when asked
 * (the render loop throttles that), so a million rows a second cost one `push` per batch.
 */
import type { LineFormat, TableRow } from './row-format.js';

/** A batch whose rows are columns (Arrow's record batch): a row is made only when asked for. */
export interface ColumnBatch {
  readonly numRows: number;
  /** Row `i` as the JSON page has it (a car row, or a rows file's event). */
  row(i: number): TableRow;
}

export class RowRing {
  private readonly slots: (TableRow | undefined)[];
  /**
   * Rows of column batches not made into JSON rows yet: the batch and the row's index in it. A
   * row is made when it is first read (newest()), so only the rows in view ever are; then it
   * stays in `slots`. Made on the first pushColumns, so a ring of JSON rows never has them.
   */
  private lazyBatch: (ColumnBatch | undefined)[] | null = null;
  private lazyIndex: Uint32Array | null = null;
  /** Rows ever pushed; the newest row sits at (total - 1) % capacity. */
  total = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array<TableRow | undefined>(capacity);
  }

  /** Keeps the column batch's last `capacity` rows by reference. */
  pushColumns(batch: ColumnBatch): void {
    const n = batch.numRows;
    const from = n > this.capacity ? n - this.capacity : 0;
    this.total += from;
    const lazyBatch = (this.lazyBatch ??= new Array<ColumnBatch | undefined>(this.capacity));
    const lazyIndex = (this.lazyIndex ??= new Uint32Array(this.capacity));
    for (let i = from; i < n; i++) {
      const k = this.total++ % this.capacity;
      this.slots[k] = undefined;
      lazyBatch[k] = batch;
      lazyIndex[k] = i;
    }
  }

  /** Keeps references to the batch's last `capacity` rows; earlier ones are never touched. */
  push(rows: readonly TableRow[]): void {
    const n = rows.length;
    const from = n > this.capacity ? n - this.capacity : 0;
    this.total += from;
    const lazyBatch = this.lazyBatch;
    for (let i = from; i < n; i++) {
      const k = this.total++ % this.capacity;
      this.slots[k] = rows[i];
      if (lazyBatch) lazyBatch[k] = undefined;
    }
  }

  get size(): number {
    return this.total < this.capacity ? this.total : this.capacity;
  }

  /** The i-th newest row (0 = newest), or undefined past the end. */
  newest(i: number): TableRow | undefined {
    if (i < 0 || i >= this.size) return undefined;
    const k = (this.total - 1 - i) % this.capacity;
    const lazy = this.lazyBatch?.[k];
    if (lazy) {
      this.slots[k] = lazy.row(this.lazyIndex![k]);
      this.lazyBatch![k] = undefined;
    }
    return this.slots[k];
  }

  clear(): void {
    this.slots.fill(undefined);
    this.lazyBatch?.fill(undefined);
    this.total = 0;
  }
}

const ROW_HEIGHT_PX = 22;

/**
 * The table draws each row as one line of monospace text in its own block, not as a <table>
 * of cells: a redraw then changes one text node per row instead of twelve, and layout places
 * about 20 lines instead of sizing 240 cells. At SSE 20 × 10 the cell table cost the main
 * thread several points more than `none` (see docs/limits.md).
 */
export class StreamingTable {
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly lines: HTMLElement;
  /** Text nodes of the visible lines, reused across redraws. */
  private texts: Text[] = [];
  /** The row object each visible line shows, to skip lines that did not change. */
  private shown: (TableRow | undefined)[] = [];
  private drawnTotal = -1;
  private drawnFirst = -1;
  private drawnSize = -1;
  // Read from scroll and resize events, never during a redraw: reading layout right after
  // the last redraw's writes would force a synchronous layout.
  private scrollTop = 0;
  private viewportHeight = 440;

  constructor(
    container: HTMLElement,
    private readonly ring: RowRing,
    /** The heading and each row's line: the car rows', or a rows file's fields (row-format.ts linesOf). */
    private readonly format: LineFormat,
  ) {
    container.classList.add('stream-table');
    const head = document.createElement('div');
    head.className = 'stream-table-head';
    head.textContent = format.heading;
    // The lines' width in characters: head and rows scroll sideways together when it is wider.
    container.style.setProperty('--line-ch', String(head.textContent.length));
    this.viewport = document.createElement('div');
    this.viewport.className = 'stream-table-viewport';
    this.spacer = document.createElement('div');
    this.lines = document.createElement('div');
    this.lines.className = 'stream-table-lines';
    this.spacer.append(this.lines);
    this.viewport.append(this.spacer);
    container.append(head, this.viewport);
    this.viewport.addEventListener(
      'scroll',
      () => {
        this.scrollTop = this.viewport.scrollTop;
        this.draw();
      },
      { passive: true },
    );
    new ResizeObserver(([entry]) => {
      this.viewportHeight = entry.contentRect.height;
      this.draw();
    }).observe(this.viewport);
  }

  /** Redraws the rows in view if anything changed since the last draw. */
  draw(): void {
    const size = this.ring.size;
    const first = Math.floor(this.scrollTop / ROW_HEIGHT_PX);
    if (this.ring.total === this.drawnTotal && first === this.drawnFirst) return;
    this.drawnTotal = this.ring.total;
    if (size !== this.drawnSize) {
      this.drawnSize = size;
      this.spacer.style.height = `${size * ROW_HEIGHT_PX}px`;
    }
    if (first !== this.drawnFirst) {
      this.drawnFirst = first;
      this.lines.style.transform = `translateY(${first * ROW_HEIGHT_PX}px)`;
    }
    const visible = Math.max(0, Math.min(size - first, Math.ceil(this.viewportHeight / ROW_HEIGHT_PX) + 1));
    while (this.texts.length > visible) {
      this.lines.lastElementChild?.remove();
      this.texts.pop();
      this.shown.pop();
    }
    while (this.texts.length < visible) {
      const line = document.createElement('div');
      this.texts.push(line.appendChild(document.createTextNode('')));
      this.lines.append(line);
      this.shown.push(undefined);
    }
    for (let i = 0; i < visible; i++) {
      const row = this.ring.newest(first + i);
      if (row === this.shown[i]) continue;
      this.shown[i] = row;
      this.texts[i].data = row ? this.format.line(row) : '';
    }
  }
}
