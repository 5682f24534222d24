/**
 * The streaming table: a ring of the last N rows and a virtualised view of it (newest
 * first). Only the rows in view exist in the DOM, and the view redraws only when asked
 * (the render loop throttles that), so a million rows a second cost one `push` per batch.
 */
import { ROW_COLUMNS, type Row } from '../../protocol/wire.js';

export class RowRing {
  private readonly slots: (Row | undefined)[];
  /** Rows ever pushed; the newest row sits at (total - 1) % capacity. */
  total = 0;

  constructor(readonly capacity: number) {
    this.slots = new Array<Row | undefined>(capacity);
  }

  /** Keeps references to the batch's last `capacity` rows; earlier ones are never touched. */
  push(rows: readonly Row[]): void {
    const n = rows.length;
    const from = n > this.capacity ? n - this.capacity : 0;
    this.total += from;
    for (let i = from; i < n; i++) this.slots[this.total++ % this.capacity] = rows[i];
  }

  get size(): number {
    return this.total < this.capacity ? this.total : this.capacity;
  }

  /** The i-th newest row (0 = newest), or undefined past the end. */
  newest(i: number): Row | undefined {
    if (i < 0 || i >= this.size) return undefined;
    return this.slots[(this.total - 1 - i) % this.capacity];
  }

  clear(): void {
    this.slots.fill(undefined);
    this.total = 0;
  }
}

const ROW_HEIGHT_PX = 22;

/**
 * Formats one cell for display; the raw JSON values stay untouched in the ring. Plain string
 * work only: a redraw formats every visible cell, and Intl formatters and Date.parse cost
 * microseconds each on the main thread that also parses every message.
 */
export function formatCell(column: number, value: Row[number]): string {
  switch (ROW_COLUMNS[column]) {
    case 'time':
    case 'since': {
      // ISO 8601 in UTC, as the server writes it: show HH:MM:SS.mmm.
      const text = String(value);
      return text.length >= 23 && text[10] === 'T' ? text.slice(11, 23) : text;
    }
    case 'lon':
    case 'lat':
      return Number(value).toFixed(5);
    default:
      return String(value);
  }
}

/** The column titles, with the unit or time zone where the cell alone does not say. */
const HEADINGS: Partial<Record<(typeof ROW_COLUMNS)[number], string>> = { time: 'time (UTC)', since: 'since (UTC)', speed: 'speed km/h' };

export class StreamingTable {
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly body: HTMLTableSectionElement;
  /** Text nodes of the visible cells, row by row, reused across redraws. */
  private cells: Text[][] = [];
  /** The row object each visible line shows, to skip lines that did not change. */
  private shown: (Row | undefined)[] = [];
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
  ) {
    container.classList.add('stream-table');
    const head = document.createElement('table');
    head.className = 'stream-table-head';
    head.createTHead().insertRow().append(...ROW_COLUMNS.map((c) => Object.assign(document.createElement('th'), { textContent: HEADINGS[c] ?? c })));
    this.viewport = document.createElement('div');
    this.viewport.className = 'stream-table-viewport';
    this.spacer = document.createElement('div');
    this.table = document.createElement('table');
    this.body = this.table.createTBody();
    this.spacer.append(this.table);
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
      this.table.style.transform = `translateY(${first * ROW_HEIGHT_PX}px)`;
    }
    const visible = Math.max(0, Math.min(size - first, Math.ceil(this.viewportHeight / ROW_HEIGHT_PX) + 1));
    while (this.cells.length > visible) {
      this.body.deleteRow(-1);
      this.cells.pop();
      this.shown.pop();
    }
    while (this.cells.length < visible) {
      const tr = this.body.insertRow();
      const texts = ROW_COLUMNS.map(() => tr.insertCell().appendChild(document.createTextNode('')));
      this.cells.push(texts);
      this.shown.push(undefined);
    }
    for (let i = 0; i < visible; i++) {
      const row = this.ring.newest(first + i);
      if (row === this.shown[i]) continue;
      this.shown[i] = row;
      const texts = this.cells[i];
      for (let c = 0; c < texts.length; c++) texts[c].data = row ? formatCell(c, row[c]) : '';
    }
  }
}
