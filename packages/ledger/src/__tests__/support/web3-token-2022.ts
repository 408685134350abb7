/**
 * Token-2022 mints with extensions, as the web3.js-driven tests make them on a ledger with
 * @solana/spl-token's own instructions.
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
  sendAndConfirmTransaction,
  SystemProgram,
  Transaction,
  type PublicKey,
  type TransactionInstruction,
} from "@solana/web3.js";

/** What a Token-2022 mint is made with: its extensions, initialized before the mint itself. */
export type Token2022MintSetup = Readonly<{
  extensions: readonly ExtensionType[];
  initializeExtensions: (mint: PublicKey) => TransactionInstruction[];
  decimals: number;
  freezeAuthority?: PublicKey;
}>;

/** A Token-2022 mint (the payer its mint authority), with the signature that created it. */
export async function token2022MintWith(
  connection: Connection,
  payer: Keypair,
  setup: Token2022MintSetup,
): Promise<{ mint: PublicKey; signature: string }> {
  const mint = Keypair.generate();
  const space = getMintLen([...setup.extensions]);
  const signature = await sendAndConfirmTransaction(
    connection,
    new Transaction().add(
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        space,
        lamports: await connection.getMinimumBalanceForRentExemption(space),
        programId: TOKEN_2022_PROGRAM_ID,
      }),
      ...setup.initializeExtensions(mint.publicKey),
      createInitializeMintInstruction(
        mint.publicKey,
        setup.decimals,
        payer.publicKey,
        setup.freezeAuthority ?? null,
        TOKEN_2022_PROGRAM_ID,
      ),
    ),
    [payer, mint],
  );
  return { mint: mint.publicKey, signature };
}

/** A Token-2022 mint with `extension`, initialized by `initializeExtension` before the mint itself. */
export async function token2022Mint(
  connection: Connection,
  payer: Keypair,
  extension: ExtensionType,
  initializeExtension: (mint: PublicKey) => TransactionInstruction,
  decimals: number,
): Promise<PublicKey> {
  const { mint } = await token2022MintWith(connection, payer, {
    extensions: [extension],
    initializeExtensions: (address) => [initializeExtension(address)],
    decimals,
  });
  return mint;
}
