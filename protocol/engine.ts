/**
 * The browser engines a point can run in. A file of its own because the scenario (the engine a
 * point asks for), a repeat's figures (the one that ran it) and the report (its browsers) each
 * name it, and none of them imports another for it.
 */

/** The browser engine a point ran in; absent in a report: `chrome` (every report before version 3 is Chrome's). */
export type Engine = 'chrome' | 'firefox';
export const ENGINES: readonly Engine[] = ['chrome', 'firefox'];
