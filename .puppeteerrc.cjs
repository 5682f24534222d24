// pushlab prefers a system Chrome/Chromium; Puppeteer's own download is only a runtime
// fallback (see puppeteer/chrome.ts), so never fetch a browser during `npm install`.
module.exports = { skipDownload: true };
