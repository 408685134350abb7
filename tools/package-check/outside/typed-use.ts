// A TypeScript user of the installed packages: their types resolve (a wrong call is an error,
// which `@ts-expect-error` requires; with `any` types these lines would fail the check).
import { ApiAttestationPage, type ApiAttestation } from "@abas/api-contract";
import { ABAS_SDK__INVALID_KEY_PAIR, isAbasError } from "@abas/errors";
import { spawnLedgerProcess, type LedgerProcess } from "@abas/ledger";
import { computeCommitment, sha256 } from "@abas/program-client";
import { AttestationClient, verifyReceiptOffline, type Receipt } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";

export async function typedUse(receipt: Receipt, error: unknown): Promise<boolean> {
  const hash: string = await AttestationClient.hashAction(AttestationClient.canonicalize({ a: 1 }));
  const digest: Uint8Array = sha256(computeCommitment(new Uint8Array(32), new Uint8Array(32)));
  const ledger: Promise<LedgerProcess> | undefined =
    hash === "" ? spawnLedgerProcess({ dataDir: "x" }) : undefined;
  const schema: object = ApiAttestationPage;
  const attestation: ApiAttestation | undefined = undefined;
  // @ts-expect-error: hashAction takes the serialized payload, a string
  await AttestationClient.hashAction(42);
  // @ts-expect-error: the Attestor needs its options
  new Attestor();
  if (isAbasError(error, ABAS_SDK__INVALID_KEY_PAIR)) return error.context.reason.length > 0;
  return (
    (await verifyReceiptOffline(receipt)).valid && digest.length === 32 && !!schema && !attestation && !ledger
  );
}
