import type { Commitment } from "@solana/kit";

/**
 * The commitment to read transaction history at: nodes keep history only for confirmed and
 * finalized transactions, so "processed" reads as "confirmed".
 */
export const historyCommitment = (commitment: Commitment): Exclude<Commitment, "processed"> =>
  commitment === "processed" ? "confirmed" : commitment;
