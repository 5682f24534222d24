/** `window.pushlab`, the control surface every page that the driver measures exposes (lab page, bare bench page). */
import type { PushlabApi } from '../../protocol/report.js';

declare global {
  interface Window {
    pushlab: PushlabApi;
  }
}
