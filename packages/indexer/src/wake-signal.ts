/** Lets the poll loop sleep until its next poll is due, or until something says "poll now". */
export class WakeSignal {
  #pending = false;
  #wakeWaiter: (() => void) | undefined;

  /** Ends the current (or the next) wait early. */
  wake(): void {
    this.#pending = true;
    this.#wakeWaiter?.();
  }

  /** Resolves after `ms`, or at once when woken since the last wait. */
  async wait(ms: number): Promise<void> {
    if (!this.#pending) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#wakeWaiter = resolve;
        timer = setTimeout(resolve, ms);
      });
      clearTimeout(timer);
      this.#wakeWaiter = undefined;
    }
    this.#pending = false;
  }
}
