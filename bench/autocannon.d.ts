/** The part of autocannon's programmatic API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  export interface Histogram {
    readonly average: number;
    readonly mean: number;
    readonly stddev: number;
    readonly min: number;
    readonly max: number;
    readonly p50: number;
    readonly p90: number;
    readonly p97_5: number;
    readonly p99: number;
  }

  export interface Options {
    readonly url: string;
    readonly connections?: number;
    readonly duration?: number;
    readonly pipelining?: number;
    readonly headers?: Record<string, string>;
    readonly title?: string;
    /** Each request is set up by the next of these; `setupRequest` may change its path. */
    readonly requests?: readonly {
      readonly setupRequest?: (request: { path: string }) => { path: string };
    }[];
  }

  export interface Result {
    readonly title?: string;
    readonly requests: Histogram & { readonly total: number };
    readonly latency: Histogram;
    readonly errors: number;
    readonly timeouts: number;
    readonly non2xx: number;
    readonly duration: number;
    readonly connections: number;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
