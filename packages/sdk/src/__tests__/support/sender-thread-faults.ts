/**
 * Faults injected on purpose into the attestor's sender thread, the two ways a real fault ends it:
 * an error nothing in the thread catches, and an exit nobody asked for. The attestor gives no
 * handle on its thread, so `captureThreads` puts a subclass of node:worker_threads' Worker in
 * place (for this process, until `restore`) that keeps every thread started meanwhile.
 */
import { syncBuiltinESMExports } from "node:module";
import threads, { type Worker } from "node:worker_threads";

export type CapturedThreads = Readonly<{ started: Worker[]; restore: () => void }>;

export function captureThreads(): CapturedThreads {
  const Original = threads.Worker;
  const started: Worker[] = [];
  threads.Worker = class CapturedWorker extends Original {
    constructor(...args: ConstructorParameters<typeof Original>) {
      super(...args);
      started.push(this);
    }
  };
  syncBuiltinESMExports();
  return {
    started,
    restore: () => {
      threads.Worker = Original;
      syncBuiltinESMExports();
    },
  };
}

export type SenderThreadFault = Readonly<{
  name: string;
  reason: RegExp;
  inject: (thread: Worker) => Promise<void>;
}>;

export const SENDER_THREAD_FAULTS: readonly SenderThreadFault[] = [
  {
    // A message the thread cannot handle: its handler throws, and nothing in the thread catches it.
    name: "throws",
    reason: /not iterable/,
    inject: async (thread) => {
      const exited = new Promise((resolve) => thread.once("exit", resolve));
      thread.postMessage({ type: "actions", actions: null });
      await exited;
    },
  },
  {
    name: "exits",
    reason: /exited with code 1/,
    inject: async (thread) => {
      await thread.terminate();
    },
  },
];
