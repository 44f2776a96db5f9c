// Long work on the shared event loop in slices: an index build, a snapshot written or read, is
// done a few milliseconds at a time, giving the loop back between slices so that every other
// request (other tenants, the monitor) is answered meanwhile. The work takes as long; nobody waits
// for all of it.

/** How long one slice may hold the event loop, in milliseconds. */
export const SLICE_MS = 8;

/** Call `pause()` between units of work: it gives the event loop back once a slice is used up. */
export class Slicer {
  private readonly now: () => number;
  private start: number;

  /** `now`: the clock slices are measured by, in milliseconds (tests inject one). */
  constructor(now: () => number = () => performance.now()) {
    this.now = now;
    this.start = now();
  }

  async pause(): Promise<void> {
    if (this.now() - this.start < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = this.now();
  }
}
