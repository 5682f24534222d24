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

const timeFormat = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  fractionalSecondDigits: 3,
  hour12: false,
});
const fixed = (digits: number) => new Intl.NumberFormat(undefined, { minimumFractionDigits: digits, maximumFractionDigits: digits });
const integer = new Intl.NumberFormat();
const coord = fixed(5);

/** Formats one cell for display; the raw JSON values stay untouched in the ring. */
export function formatCell(column: number, value: Row[number]): string {
  switch (ROW_COLUMNS[column]) {
    case 'time':
    case 'since': {
      const t = Date.parse(String(value));
      return Number.isNaN(t) ? String(value) : timeFormat.format(t);
    }
    case 'lon':
    case 'lat':
      return coord.format(Number(value));
    case 'gas':
    case 'speed':
    case 'id':
      return integer.format(Number(value));
    default:
      return String(value);
  }
}

export class StreamingTable {
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly body: HTMLTableSectionElement;
  private drawnTotal = -1;
  private drawnFirst = -1;

  constructor(
    container: HTMLElement,
    private readonly ring: RowRing,
  ) {
    container.classList.add('stream-table');
    const head = document.createElement('table');
    head.className = 'stream-table-head';
    head.createTHead().insertRow().append(...ROW_COLUMNS.map((c) => Object.assign(document.createElement('th'), { textContent: c })));
    this.viewport = document.createElement('div');
    this.viewport.className = 'stream-table-viewport';
    this.spacer = document.createElement('div');
    const table = document.createElement('table');
    this.body = table.createTBody();
    this.spacer.append(table);
    this.viewport.append(this.spacer);
    container.append(head, this.viewport);
    this.viewport.addEventListener('scroll', () => this.draw(), { passive: true });
  }

  /** Redraws the rows in view if anything changed since the last draw. */
  draw(): void {
    const size = this.ring.size;
    const first = Math.floor(this.viewport.scrollTop / ROW_HEIGHT_PX);
    if (this.ring.total === this.drawnTotal && first === this.drawnFirst) return;
    this.drawnTotal = this.ring.total;
    this.drawnFirst = first;
    this.spacer.style.height = `${size * ROW_HEIGHT_PX}px`;
    const visible = Math.min(size - first, Math.ceil(this.viewport.clientHeight / ROW_HEIGHT_PX) + 1);
    const table = this.body.parentElement as HTMLTableElement;
    table.style.transform = `translateY(${first * ROW_HEIGHT_PX}px)`;
    while (this.body.rows.length > Math.max(0, visible)) this.body.deleteRow(-1);
    while (this.body.rows.length < visible) {
      const tr = this.body.insertRow();
      for (let c = 0; c < ROW_COLUMNS.length; c++) tr.insertCell();
    }
    for (let i = 0; i < visible; i++) {
      const row = this.ring.newest(first + i);
      const cells = this.body.rows[i].cells;
      for (let c = 0; c < ROW_COLUMNS.length; c++) cells[c].textContent = row ? formatCell(c, row[c]) : '';
    }
  }
}
