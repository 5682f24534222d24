/**
 * Whether process `pid` still runs: signal 0 probes without sending anything. EPERM means it
 * runs as another user, which is still running. Used to leave alone what a live process owns
 * (a temporary file, a build, a Chrome profile) when cleaning up after one that died.
 */
export function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
