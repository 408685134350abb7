// The SDK's core as a web page or a Node.js script uses it, with no network: canonical JSON and
// action hashes, an agent key from its secret bytes (and a bad one refused), receipts checked
// offline. The test runs this same file with plain node and, bundled by esbuild, in Chromium.
import { ABAS_SDK__INVALID_KEY_PAIR, isAbasError } from "@abas/errors";
import { computeCommitment, hashLeaf, hashNode, LEAF_DATA_SIZE } from "@abas/program-client";
import { AttestationClient, verifyReceiptOffline } from "@abas/sdk";

const hex = (bytes) => [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");

function errorCodeOf(make) {
  try {
    make();
    return "no error";
  } catch (error) {
    return isAbasError(error, ABAS_SDK__INVALID_KEY_PAIR) ? "ABAS_SDK__INVALID_KEY_PAIR" : String(error);
  }
}

export async function runSdkCore({ action, secretKey, receipts }) {
  const canonical = AttestationClient.canonicalize(action);
  const actionHash = await AttestationClient.hashAction(canonical);
  const rpcUrl = "http://127.0.0.1:8899";
  const client = new AttestationClient({ rpcUrl, agentKeypair: Uint8Array.from(secretKey) });
  const mismatched = Uint8Array.from(secretKey);
  mismatched[63] ^= 1;
  const verifications = [];
  for (const receipt of receipts) verifications.push((await verifyReceiptOffline(receipt)).valid);
  const tampered = await verifyReceiptOffline({ ...receipts[0], actionHash: "00".repeat(32) });
  const zeros = new Uint8Array(32);
  return {
    canonical,
    actionHash,
    agentAddress: client.agentAddress,
    mismatchedKey: errorCodeOf(() => new AttestationClient({ rpcUrl, agentKeypair: mismatched })),
    keyFilePath: errorCodeOf(
      () => new AttestationClient({ rpcUrl, agentKeypair: "/nonexistent/agent.json" }),
    ),
    commitment: hex(computeCommitment(zeros, zeros)),
    merkleNode: hex(hashNode(hashLeaf(new Uint8Array(LEAF_DATA_SIZE)), zeros)),
    verifications,
    tamperedValid: tampered.valid,
  };
}
