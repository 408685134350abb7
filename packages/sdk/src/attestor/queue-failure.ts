/** File system failures of the attestor's queue directory, as the attestor's named error. */
import { ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, AbasError, isAbasError } from "@abas/errors";

/** `error` from `doing` something to the queue in `queueDir`; an AbasError is returned as it is. */
export function queueFailure(queueDir: string, doing: string, error: unknown): unknown {
  if (isAbasError(error)) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new AbasError(ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, {
    queueDir,
    reason: `${doing} failed${code === undefined ? "" : ` (${code})`}: ${message}`,
    cause: error,
  });
}
