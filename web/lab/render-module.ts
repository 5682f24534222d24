/**
 * A team's render module on the page (protocol/render-module.ts): imported from the URL the
 * driver built it at, checked against the interface, and mounted in the element the table would
 * use. The driver checked its exports when it built it; this checks again, since a page can be
 * given any URL of that shape by hand.
 */
import {
  RENDER_MODULE_EXPORT,
  renderExportsProblem,
  renderViewProblem,
  type RenderModule,
  type RenderPage,
  type RenderView,
} from '../../protocol/render-module.js';
import type { TableRow } from './row-format.js';

export type PageRenderModule = RenderModule<HTMLElement, TableRow>;

/** The module at `url`, or an error that names it and what it lacks. */
export async function loadRenderModule(url: string): Promise<PageRenderModule> {
  const ns = (await import(/* @vite-ignore */ new URL(url, location.href).href)) as Record<string, unknown>;
  const problem = renderExportsProblem(Object.fromEntries(Object.entries(ns).map(([k, v]) => [k, typeof v])));
  if (problem) throw new Error(`render module ${url}: ${problem}`);
  return ns as unknown as PageRenderModule;
}

/** Mounts the module in `host`; throws, naming the module, when what it returns is no RenderView. */
export function mountRenderModule(module: PageRenderModule, host: HTMLElement, page: RenderPage): RenderView<TableRow> {
  const view = module[RENDER_MODULE_EXPORT](host, page);
  const problem = renderViewProblem(view);
  if (problem) throw new Error(`render module: ${problem}`);
  return view;
}
