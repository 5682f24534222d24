/**
 * A team's own page component in place of pushlab's table and charts (`--render-module FILE`,
 * docs/your-stream.md "Your page: --render-module"): the interface the module implements, and
 * the names the driver, the server and the page share to find it.
 *
 * pushlab keeps everything that measures: the transport, decoding, counting, event age, the
 * input-delay probe and CPU. The module only draws, as it would in the product (its framework,
 * its throttling, its DOM or canvas), and says when it has drawn, which is when pushlab takes
 * the display age: the age of the newest event received at that moment.
 *
 * Pure: no Node, no DOM (the element is a type parameter; the page gives an HTMLElement).
 */

/** The named export a module must have: `export function mount(host, page) { … }`. */
export const RENDER_MODULE_EXPORT = 'mount';

/**
 * One decoded message, as the page has it: JSON and MessagePack messages as their rows; an
 * Arrow message as its record batch, whose rows are made only when read (`row(i)`), so a
 * module that reads a column or the last rows pays for no others.
 */
export type RenderBatch<Row = unknown> =
  { readonly kind: 'rows'; readonly rows: readonly Row[] } | { readonly kind: 'columns'; readonly numRows: number; row(i: number): Row };

/** What pushlab gives the module when it mounts it. */
export interface RenderPage {
  /**
   * Call once what the module received is on screen (after its framework committed it, or in
   * the frame it painted): pushlab records the display age then. Not calling it leaves the run
   * with no display age; calling it without drawing makes the figure a lie.
   */
  drawn(): void;
  /** The rows' field names, in the order a row (an array) holds them. */
  readonly columns: readonly string[];
  /** The stream's encoding: `arrow` batches come as `columns`, the rest as `rows`. */
  readonly encoding: string;
}

/** What `mount` returns: where the batches go, and how the run ends. */
export interface RenderView<Row = unknown> {
  /** Each decoded message, on the main thread, as it arrives: keep it short, draw on your own schedule. */
  batch(batch: RenderBatch<Row>): void;
  /** The run stopped: free what the view holds. The page empties the element after it. */
  unmount?(): void;
}

/**
 * The module's contract: `export const mount: RenderModule<HTMLElement>['mount'] = (host, page) => …`.
 * Called once per run, before the first batch; `host` is an empty element the module owns.
 */
export interface RenderModule<Host = unknown, Row = unknown> {
  mount(host: Host, page: RenderPage): RenderView<Row>;
}

/** Which module a point was measured with: the file as given, and the SHA-256 of its text. */
export interface RenderModuleRef {
  /** As given to `--render-module` or a scenario's `renderModule` (relative to the project root, as the scenario file is). */
  path: string;
  /** SHA-256 of the file's bytes, hex: which version of it was measured. */
  sha256: string;
}

/** Where the server serves built modules (a directory per module), under its origin. */
export const RENDER_MODULES_PATH = 'render-modules';

/** The page-relative URL of a built module, by its source's hash (the driver builds it there). */
export function renderModuleUrl(sha256: string): string {
  return `./${RENDER_MODULES_PATH}/${sha256}/module.js`;
}

/** A built module's URL as the page takes it (`renderModuleUrl`'s shape): nothing else is imported. */
export const RENDER_MODULE_URL_PATTERN = new RegExp(`^\\./${RENDER_MODULES_PATH}/[0-9a-f]{64}/module\\.js$`);

/**
 * Why a module's exports are not the interface, or null when they are. `exports` maps each
 * export's name to its `typeof` (the build knows only names: it passes 'function' for each).
 */
export function renderExportsProblem(exports: Readonly<Record<string, string>>): string | null {
  const kind = exports[RENDER_MODULE_EXPORT];
  if (kind === undefined) {
    const names = Object.keys(exports);
    return `it does not export \`${RENDER_MODULE_EXPORT}\` (it exports ${names.length ? names.map((n) => `\`${n}\``).join(', ') : 'nothing'}); a render module exports \`function ${RENDER_MODULE_EXPORT}(host, page)\` returning \`{ batch(b) {…} }\` (protocol/render-module.ts)`;
  }
  if (kind !== 'function') return `its \`${RENDER_MODULE_EXPORT}\` export is a ${kind}, not a function (protocol/render-module.ts)`;
  return null;
}

/** Why what `mount` returned is not a RenderView, or null when it is. */
export function renderViewProblem(view: unknown): string | null {
  if (view === null || typeof view !== 'object')
    return `\`${RENDER_MODULE_EXPORT}\` returned ${view === null ? 'null' : typeof view}, not an object with batch(b)`;
  const v = view as Record<string, unknown>;
  if (typeof v.batch !== 'function') return `what \`${RENDER_MODULE_EXPORT}\` returned has no batch(b) function`;
  if (v.unmount !== undefined && typeof v.unmount !== 'function') return `what \`${RENDER_MODULE_EXPORT}\` returned has an unmount that is not a function`;
  return null;
}
