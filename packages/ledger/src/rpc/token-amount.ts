/**
 * Token amounts as validators show them (UiTokenAmount): the raw amount as a decimal string,
 * the mint's decimals, `uiAmount` as a float (null when 10^decimals overflows a u64, as on a
 * validator) and `uiAmountString`, the exact decimal number without trailing zeros.
 */
export interface UiTokenAmount {
  readonly amount: string;
  readonly decimals: number;
  readonly uiAmount: number | null;
  readonly uiAmountString: string;
}

/** 10^19 is the largest power of ten a u64 holds. */
const MAX_DIVISIBLE_DECIMALS = 19;

function exactDecimalString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}

export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: decimals > MAX_DIVISIBLE_DECIMALS ? null : Number(amount) / 10 ** decimals,
    uiAmountString: exactDecimalString(amount, decimals),
  };
}
