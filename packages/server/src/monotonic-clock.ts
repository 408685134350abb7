/**
 * Milliseconds on the process's monotonic clock: what the server's ages and refills are measured
 * with, since a step of the wall clock (an NTP correction, a restored VM) does not move it.
 */
export const monotonicMs = (): number => performance.now();
