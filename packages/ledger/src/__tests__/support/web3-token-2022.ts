/**
 * What the web3.js-driven tests set up on a ledger: a funded payer, and a Token-2022 mint with one
 * extension, created with @solana/spl-token's own instructions.
 */
import {
  createInitializeMintInstruction,
  ExtensionType,
  getMintLen,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  sendAndConfirmTransaction,
  SystemProgram,
  Transaction,
  type PublicKey,
  type TransactionInstruction,
} from "@solana/web3.js";

/** A new keypair holding `sol` SOL from the ledger's faucet. */
export async function fundedPayer(connection: Connection, sol = 1): Promise<Keypair> {
  const payer = Keypair.generate();
  const signature = await connection.requestAirdrop(payer.publicKey, sol * LAMPORTS_PER_SOL);
  await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) });
  return payer;
}

/** A Token-2022 mint with `extension`, initialized by `initializeExtension` before the mint itself. */
export async function token2022Mint(
  connection: Connection,
  payer: Keypair,
  extension: ExtensionType,
  initializeExtension: (mint: PublicKey) => TransactionInstruction,
  decimals: number,
): Promise<PublicKey> {
  const mint = Keypair.generate();
  const space = getMintLen([extension]);
  await sendAndConfirmTransaction(
    connection,
    new Transaction().add(
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        space,
        lamports: await connection.getMinimumBalanceForRentExemption(space),
        programId: TOKEN_2022_PROGRAM_ID,
      }),
      initializeExtension(mint.publicKey),
      createInitializeMintInstruction(mint.publicKey, decimals, payer.publicKey, null, TOKEN_2022_PROGRAM_ID),
    ),
    [payer, mint],
  );
  return mint.publicKey;
}
