// Long work on the shared event loop in slices: an index build, a snapshot written or read, is
// done a few milliseconds at a time, giving the loop back between slices so that every other
// request (other tenants, the monitor) is answered meanwhile. The work takes as long; nobody waits
// for all of it.

/** How long one slice may hold the event loop, in milliseconds. */
export const SLICE_MS = 8;

/** Call `pause()` between units of work: it gives the event loop back once a slice is used up. */
export class Slicer {
  private start = performance.now();

  async pause(): Promise<void> {
    if (performance.now() - this.start < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}
