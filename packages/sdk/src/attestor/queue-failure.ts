/** File system failures of the attestor's queue directory, as the attestor's named errors. */
import { DirectoryLockedError } from "@abas/dir-lock";
import {
  ABAS_SDK__ATTESTOR_QUEUE_LOCKED,
  ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE,
  AbasError,
  isAbasError,
} from "@abas/errors";

/**
 * `error` from `doing` something to the queue in `queueDir`: another process's lock on it is
 * ABAS_SDK__ATTESTOR_QUEUE_LOCKED; an AbasError is returned as it is.
 */
export function queueFailure(queueDir: string, doing: string, error: unknown): unknown {
  if (isAbasError(error)) return error;
  if (error instanceof DirectoryLockedError) {
    return new AbasError(ABAS_SDK__ATTESTOR_QUEUE_LOCKED, {
      queueDir,
      lockFile: error.lockFile,
      pid: error.pid,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new AbasError(ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, {
    queueDir,
    reason: `${doing} failed${code === undefined ? "" : ` (${code})`}: ${message}`,
    cause: error,
  });
}
