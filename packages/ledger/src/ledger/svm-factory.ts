/**
 * The SVM: litesvm's `new LiteSVM()` (mainnet features, builtins, sysvars, precompiles,
 * signature verification) with the settings this ledger depends on re-applied after every
 * restore from a snapshot.
 */
import { Clock, EpochSchedule, LiteSVM } from "litesvm";

import { SLOTS_PER_EPOCH, type BlockClock } from "./ledger-time.js";

function configure(svm: LiteSVM): LiteSVM {
  return (
    svm
      // Blockhashes are checked against the ledger's own 150-slot window instead.
      .withBlockhashCheck(false)
      // Duplicates are refused from the ledger's own history; litesvm's would only grow snapshots.
      .withTransactionHistory(0n)
      .withSigverify(true)
  );
}

export function createSvm(): LiteSVM {
  const svm = configure(new LiteSVM());
  svm.setEpochSchedule(new EpochSchedule(SLOTS_PER_EPOCH, SLOTS_PER_EPOCH, false, 0n, 0n));
  return svm;
}

export function restoreSvm(state: Uint8Array): LiteSVM {
  return configure(LiteSVM.fromBytes(state));
}

export function setSvmClock(svm: LiteSVM, clock: BlockClock): void {
  svm.setClock(
    new Clock(clock.slot, clock.epochStartTimestamp, clock.epoch, clock.epoch + 1n, clock.unixTimestamp),
  );
}
