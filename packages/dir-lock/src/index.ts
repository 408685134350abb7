export {
  directoryLockHolder,
  DirectoryLockedError,
  LEASE_RENEW_MS,
  LEASE_WATCH_MS,
  lockDirectory,
  lockFileRemains,
  renewDirectoryLock,
  type DirectoryLock,
  type LockDirectoryOptions,
  type LockFileId,
} from "./dir-lock.js";
export { isProcessAlive } from "./process-identity.js";
