/**
 * The BPF Upgradeable Loader's instructions in jsonParsed, in a validator's shapes, read with
 * @solana/web3.js's getParsedTransaction: the ledger's own deploy of the ABAS program at genesis
 * (a buffer initialized and written in chunks, then DeployWithMaxDataLen, as `solana program
 * deploy` does it), and a buffer of the test's own whose authority is handed over and which is
 * then closed.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";

import {
  Keypair,
  PublicKey,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  Transaction,
  TransactionInstruction,
  type Connection,
} from "@solana/web3.js";

import { readShown, type Shown } from "./support/parsed-instructions.js";
import { startWeb3Ledger, type Web3Ledger } from "./support/web3-ledger.js";

const LOADER = new PublicKey("BPFLoaderUpgradeab1e11111111111111111111111");
const PROGRAM_BYTES = readFileSync(new URL("../../../../program/dist/abas_attestation.so", import.meta.url));
/** The chunk each Write of the genesis deploy carries (`WRITE_CHUNK_SIZE` of @abas/program-client). */
const CHUNK = 900;

const loader = (type: string, info: Record<string, unknown>): Shown => ({
  program: "bpf-upgradeable-loader",
  type,
  info,
});

/** A loader instruction: its u32 tag, then its fields. */
function loaderInstruction(tag: number, keys: TransactionInstruction["keys"]): TransactionInstruction {
  return new TransactionInstruction({ programId: LOADER, keys, data: Buffer.from([tag, 0, 0, 0]) });
}

describe("the BPF Upgradeable Loader in jsonParsed", () => {
  let web3: Web3Ledger;
  let connection: Connection;

  /** Every instruction of every transaction naming `address`, oldest first, as shown. */
  async function shownFor(address: PublicKey): Promise<Shown[]> {
    const signatures = (await connection.getSignaturesForAddress(address)).reverse();
    const shown: Shown[] = [];
    for (const { signature } of signatures) shown.push(...(await readShown(connection, signature)).top);
    return shown;
  }

  before(async () => {
    web3 = await startWeb3Ledger();
    ({ connection } = web3);
  });
  after(async () => {
    await web3.stop();
  });

  test("the genesis deploy: the buffer's initialization and writes, then DeployWithMaxDataLen", async () => {
    const program = new PublicKey(web3.ledger.programId);
    const faucet = web3.ledger.faucet;
    const [programData] = PublicKey.findProgramAddressSync([program.toBytes()], LOADER);

    // Given the transactions that name the program, the deploy among them
    const deploy = (await shownFor(program)).find(
      (shown) => "type" in shown && shown.type === "deployWithMaxDataLen",
    );
    assert.ok(deploy && "info" in deploy);
    const buffer = (deploy.info as { bufferAccount: string }).bufferAccount;
    assert.deepEqual(
      deploy,
      loader("deployWithMaxDataLen", {
        maxDataLen: PROGRAM_BYTES.length,
        payerAccount: faucet,
        programDataAccount: programData.toBase58(),
        programAccount: program.toBase58(),
        bufferAccount: buffer,
        rentSysvar: SYSVAR_RENT_PUBKEY.toBase58(),
        clockSysvar: SYSVAR_CLOCK_PUBKEY.toBase58(),
        systemProgram: SystemProgram.programId.toBase58(),
        authority: faucet,
      }),
    );

    // Then the buffer's own transactions: created and initialized, then written chunk by chunk,
    // each Write's bytes the program's, in base64
    const forBuffer = (await shownFor(new PublicKey(buffer))).filter(
      (shown) => "program" in shown && shown.program === "bpf-upgradeable-loader",
    );
    const writes = forBuffer.filter((shown) => "type" in shown && shown.type === "write");
    assert.deepEqual(forBuffer[0], loader("initializeBuffer", { account: buffer, authority: faucet }));
    assert.equal(writes.length, Math.ceil(PROGRAM_BYTES.length / CHUNK));
    writes.forEach((write, index) =>
      assert.deepEqual(
        write,
        loader("write", {
          offset: index * CHUNK,
          bytes: PROGRAM_BYTES.subarray(index * CHUNK, (index + 1) * CHUNK).toString("base64"),
          account: buffer,
          authority: faucet,
        }),
      ),
    );
  });

  test("a buffer's authority handed over, then the buffer closed; an optional account absent is null", async () => {
    const { payer } = web3;
    const buffer = Keypair.generate();
    const next = Keypair.generate();
    const space = 37 + 10; // the buffer's metadata and 10 bytes of program
    const initialize = loaderInstruction(0, [
      { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
      { pubkey: payer.publicKey, isSigner: false, isWritable: false },
    ]);
    const setAuthority = loaderInstruction(4, [
      { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
      { pubkey: payer.publicKey, isSigner: true, isWritable: false },
      { pubkey: next.publicKey, isSigner: false, isWritable: false },
    ]);
    const close = loaderInstruction(5, [
      { pubkey: buffer.publicKey, isSigner: false, isWritable: true },
      { pubkey: payer.publicKey, isSigner: false, isWritable: true },
      { pubkey: next.publicKey, isSigner: true, isWritable: false },
    ]);
    const transaction = new Transaction().add(
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: buffer.publicKey,
        space,
        lamports: await connection.getMinimumBalanceForRentExemption(space),
        programId: LOADER,
      }),
      initialize,
      setAuthority,
      close,
    );
    const signature = await connection.sendTransaction(transaction, [payer, buffer, next]);
    await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) });

    const [b, p, n] = [buffer.publicKey, payer.publicKey, next.publicKey].map((key) => key.toBase58());
    assert.deepEqual((await readShown(connection, signature)).top.slice(1), [
      loader("initializeBuffer", { account: b, authority: p }),
      loader("setAuthority", { account: b, authority: p, newAuthority: n }),
      loader("close", { account: b, recipient: p, authority: n, programAccount: null }),
    ]);
    assert.equal(await connection.getAccountInfo(buffer.publicKey), null);
  });
});
