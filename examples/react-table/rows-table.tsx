/**
 * An example render module (`--render-module examples/react-table/rows-table.tsx`): the newest
 * rows in a React table built with TanStack Table, the way a product page would show a live feed.
 * It keeps its own throttling (one React render per animation frame at most) and tells pushlab
 * when React has committed what it received (`page.drawn()`), so the display age is the age of
 * what is on screen. Copy it as the start of your own: only `mount` is pushlab's.
 */
import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { createColumnHelper, flexRender, getCoreRowModel, useReactTable } from '@tanstack/react-table';
import type { RenderBatch, RenderModule, RenderPage } from '../../protocol/render-module.js';

/** Rows on screen: the newest first. */
const SHOWN = 50;

type Row = readonly unknown[];

/** The newest rows received since the last frame, and who to tell when there are new ones. */
class Feed {
  rows: Row[] = [];
  private listener: ((rows: Row[]) => void) | null = null;
  private frame = 0;

  /** Keeps the batch's last SHOWN rows (an Arrow batch's other rows are never made). */
  add(batch: RenderBatch<Row>): void {
    const n = batch.kind === 'rows' ? batch.rows.length : batch.numRows;
    const newest: Row[] = [];
    for (let i = n - 1; i >= 0 && newest.length < SHOWN; i--) newest.push(batch.kind === 'rows' ? batch.rows[i] : batch.row(i));
    this.rows = newest.concat(this.rows).slice(0, SHOWN);
    // One React update per frame, however many messages arrived in it.
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      this.listener?.(this.rows);
    });
  }

  listen(listener: ((rows: Row[]) => void) | null): void {
    this.listener = listener;
  }

  stop(): void {
    cancelAnimationFrame(this.frame);
    this.listener = null;
  }
}

const helper = createColumnHelper<Row>();

function RowsTable({ feed, page }: { feed: Feed; page: RenderPage }) {
  const [rows, setRows] = useState<Row[]>([]);
  useEffect(() => {
    feed.listen(setRows);
    return () => feed.listen(null);
  }, [feed]);
  // After React committed these rows to the DOM: what pushlab times as drawn.
  useEffect(() => {
    if (rows.length) page.drawn();
  }, [rows, page]);
  const [columns] = useState(() => page.columns.map((name, i) => helper.accessor((r) => r[i], { id: name, header: name, cell: (c) => String(c.getValue()) })));
  const table = useReactTable({ data: rows, columns, getCoreRowModel: getCoreRowModel() });
  return (
    <table>
      <thead>
        {table.getHeaderGroups().map((g) => (
          <tr key={g.id}>
            {g.headers.map((h) => (
              <th key={h.id}>{flexRender(h.column.columnDef.header, h.getContext())}</th>
            ))}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.map((r) => (
          <tr key={r.id}>
            {r.getVisibleCells().map((c) => (
              <td key={c.id}>{flexRender(c.column.columnDef.cell, c.getContext())}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export const mount: RenderModule<HTMLElement, Row>['mount'] = (host, page) => {
  const feed = new Feed();
  const root = createRoot(host);
  root.render(<RowsTable feed={feed} page={page} />);
  return {
    batch: (b) => feed.add(b),
    unmount() {
      feed.stop();
      root.unmount();
    },
  };
};
