/** Which driver errors mean a Firefox tab was lost (recorded as 'renderer crashed'), from messages Firefox gave. */
import { describe, expect, it } from 'vitest';
import { lostFirefoxTab } from '../../puppeteer/measure/repeat.js';

describe('lostFirefoxTab', () => {
  it.each([
    'Protocol error (script.callFunction): Target closed',
    'Protocol error (script.callFunction): no such frame Browsing context with id 12 not found',
    // Content processes killed in the warm-up (CI, firefox-crash): the page API's handle went with its realm.
    'Protocol error (script.callFunction): no such handle Unable to find an object reference for "handle" 5941b317-8c1f-482b-b7e5-0b9e97467584 RemoteError@chrome://remote/content/shared/RemoteError.sys.mjs:8:8',
  ])('lost: %s', (message) => {
    expect(lostFirefoxTab(new Error(message))).toBe(true);
  });

  it.each(['net::ERR_CONNECTION_REFUSED at https://127.0.0.1:1/', 'Waiting for selector `#table` failed: 30000ms exceeded'])('not lost: %s', (message) => {
    expect(lostFirefoxTab(new Error(message))).toBe(false);
  });
});
