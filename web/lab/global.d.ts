/** `window.pushlab`, the control surface every page that the driver measures exposes (lab page, bare bench page). */
import type { PageConfig, PushlabApi, RecordedPoint } from '../../protocol/page-api.js';

declare global {
  interface Window {
    pushlab: PushlabApi;
    /** The lab page under `npm run lab` only (page.exposeFunction): measures these settings as a sweep point. */
    pushlabRecord?: (config: PageConfig) => Promise<RecordedPoint>;
  }
}
