/**
 * The subscriptions of one WebSocket connection: signatureSubscribe, slotSubscribe,
 * logsSubscribe, accountSubscribe, programSubscribe, rootSubscribe and their *Unsubscribe
 * methods, with notifications in the validator's shapes. Closing the session ends them all.
 */
import type { Address, EncodedAccount } from "@solana/kit";

import type { LandedTransaction, Ledger } from "../ledger/ledger.js";
import type { SlotInfo } from "../ledger/slot-clock.js";
import type { Logger } from "../logger.js";
import {
  encodeAccount,
  ledgerMintScales,
  readAccountView,
  type AccountView,
} from "../rpc/account-encoding.js";
import { readAccountFilters } from "../rpc/account-filters.js";
import { handlePayload, invalidParams, type RpcMethod } from "../rpc/json-rpc.js";
import { stringifyJson } from "../rpc/json.js";
import {
  addressParam,
  configParam,
  optionalBoolean,
  optionalEnum,
  COMMITMENTS,
  positional,
  requiredParam,
  signatureParam,
  type Config,
} from "../rpc/params.js";
import { withContext } from "../rpc/rpc-context.js";

type Kind = "signature" | "slot" | "logs" | "account" | "program" | "root";

const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;

let nextSubscriptionId = 1;

export class SubscriptionSession {
  private readonly active = new Map<number, { kind: Kind; stop: () => void }>();
  private readonly methods: ReadonlyMap<string, RpcMethod<null>>;

  constructor(
    private readonly ledger: Ledger,
    private readonly send: (text: string) => void,
    private readonly logger: Logger,
  ) {
    this.methods = new Map<string, RpcMethod<null>>([
      ["signatureSubscribe", (params) => this.signatureSubscribe(params)],
      ["slotSubscribe", (params) => this.slotSubscribe(params)],
      ["rootSubscribe", (params) => this.rootSubscribe(params)],
      ["logsSubscribe", (params) => this.logsSubscribe(params)],
      ["accountSubscribe", (params) => this.accountSubscribe(params)],
      ["programSubscribe", (params) => this.programSubscribe(params)],
      ...(["signature", "slot", "root", "logs", "account", "program"] as const).map(
        (kind) =>
          [`${kind}Unsubscribe`, (params: unknown) => this.unsubscribe(kind, params)] as [
            string,
            RpcMethod<null>,
          ],
      ),
    ]);
  }

  async handleMessage(text: string): Promise<void> {
    const reply = await handlePayload(text, this.methods, null, this.logger);
    if (reply !== undefined) this.send(reply);
  }

  close(): void {
    for (const { stop } of this.active.values()) stop();
    this.active.clear();
  }

  private notify(method: string, subscription: number, result: unknown): void {
    this.send(stringifyJson({ jsonrpc: "2.0", method, params: { result, subscription } }));
  }

  private register(kind: Kind, stop: () => void): number {
    const id = nextSubscriptionId++;
    this.active.set(id, { kind, stop });
    return id;
  }

  private unsubscribe(kind: Kind, params: unknown): boolean {
    const args = positional(params, `${kind}Unsubscribe`, 1);
    const id = requiredParam(args, 0, "subscription id");
    const subscription = typeof id === "number" ? this.active.get(id) : undefined;
    if (subscription === undefined || subscription.kind !== kind)
      throw invalidParams("Invalid subscription id.");
    subscription.stop();
    this.active.delete(id as number);
    return true;
  }

  private readCommitment(config: Config): void {
    optionalEnum(config, "commitment", COMMITMENTS);
  }

  /** Notifies once, when the transaction lands (at once if it already has), then ends. */
  private signatureSubscribe(params: unknown): number {
    const args = positional(params, "signatureSubscribe", 2);
    const signature = signatureParam(requiredParam(args, 0, "signature"), "signature");
    const config = configParam(args, 1, "signatureSubscribe");
    this.readCommitment(config);
    const announceReceived = optionalBoolean(config, "enableReceivedNotification") ?? false;
    let stopListening = (): void => {};
    const id = this.register("signature", () => stopListening());
    const finish = (slot: bigint, err: unknown): void => {
      this.active.delete(id);
      stopListening();
      this.notify("signatureNotification", id, withContext(slot, { err }));
    };
    const recorded = this.ledger.history.get(signature);
    if (recorded !== undefined) {
      // At the next slot, as a validator's notifications follow its slots: never in the same
      // write as the reply that carries the subscription id, which clients such as @solana/kit
      // must read before they start listening for notifications.
      stopListening = this.ledger.slotStarted.on((slot: SlotInfo) => finish(slot.slot, recorded.err));
      return id;
    }
    stopListening = this.ledger.transactionLanded.on((landed) => {
      if (landed.signature !== signature) return;
      if (announceReceived)
        this.notify("signatureNotification", id, withContext(landed.slot, "receivedSignature"));
      finish(landed.slot, landed.err);
    });
    return id;
  }

  private slotSubscribe(params: unknown): number {
    positional(params, "slotSubscribe", 0);
    let stop = (): void => {};
    const id = this.register("slot", () => stop());
    stop = this.ledger.slotStarted.on((slot: SlotInfo) => this.notify("slotNotification", id, slot));
    return id;
  }

  private rootSubscribe(params: unknown): number {
    positional(params, "rootSubscribe", 0);
    let stop = (): void => {};
    const id = this.register("root", () => stop());
    stop = this.ledger.slotStarted.on((slot: SlotInfo) => this.notify("rootNotification", id, slot.root));
    return id;
  }

  /** "all" and "allWithVotes" (there are no votes here), or `{ mentions: [address] }`. */
  private logsSubscribe(params: unknown): number {
    const args = positional(params, "logsSubscribe", 2);
    const filter = requiredParam(args, 0, "filter");
    this.readCommitment(configParam(args, 1, "logsSubscribe"));
    let mentions: Address | undefined;
    if (filter !== "all" && filter !== "allWithVotes") {
      const list = typeof filter === "object" ? (filter as Config).mentions : undefined;
      if (!Array.isArray(list) || list.length !== 1) {
        throw invalidParams('the filter must be "all", "allWithVotes" or { mentions: [one address] }');
      }
      mentions = addressParam(list[0], "mentions[0]");
    }
    let stop = (): void => {};
    const id = this.register("logs", () => stop());
    stop = this.ledger.transactionLanded.on((landed: LandedTransaction) => {
      if (mentions !== undefined && !landed.accountKeys.includes(mentions)) return;
      this.notify(
        "logsNotification",
        id,
        withContext(landed.slot, { signature: landed.signature, err: landed.err, logs: landed.logs }),
      );
    });
    return id;
  }

  /** Notifies whenever a landed transaction changed the account. */
  private accountSubscribe(params: unknown): number {
    const args = positional(params, "accountSubscribe", 2);
    const address = addressParam(requiredParam(args, 0, "pubkey"), "pubkey");
    const config = configParam(args, 1, "accountSubscribe");
    this.readCommitment(config);
    const view = readAccountView(config, "binary");
    let last = this.fingerprint(address, view);
    let stop = (): void => {};
    const id = this.register("account", () => stop());
    stop = this.ledger.transactionLanded.on((landed) => {
      if (!landed.accountKeys.includes(address)) return;
      const now = this.fingerprint(address, view);
      if (now.text === last.text) return;
      last = now;
      this.notify("accountNotification", id, withContext(landed.slot, now.value));
    });
    return id;
  }

  private fingerprint(address: Address, view: AccountView): { value: unknown; text: string } {
    const account = this.ledger.account(address);
    // A closed account is shown as an empty one owned by the System Program, as validators do.
    const shown: EncodedAccount =
      account === undefined || account.lamports === 0n
        ? {
            address,
            data: new Uint8Array() as EncodedAccount["data"],
            executable: false,
            lamports: 0n as EncodedAccount["lamports"],
            programAddress: SYSTEM_PROGRAM,
            space: 0n,
          }
        : account;
    const value = encodeAccount(shown, view, ledgerMintScales(this.ledger));
    return { value, text: stringifyJson(value) };
  }

  /** Notifies for each account the program owns that a landed transaction named. */
  private programSubscribe(params: unknown): number {
    const args = positional(params, "programSubscribe", 2);
    const program = addressParam(requiredParam(args, 0, "program id"), "program id");
    const config = configParam(args, 1, "programSubscribe");
    this.readCommitment(config);
    const view = readAccountView(config, "binary");
    const matches = readAccountFilters(config.filters);
    let stop = (): void => {};
    const id = this.register("program", () => stop());
    stop = this.ledger.transactionLanded.on((landed) => {
      for (const pubkey of new Set(landed.accountKeys)) {
        const account = this.ledger.account(pubkey);
        if (account === undefined || account.programAddress !== program) continue;
        if (!matches(account.data as Uint8Array)) continue;
        this.notify(
          "programNotification",
          id,
          withContext(landed.slot, {
            pubkey,
            account: encodeAccount(account, view, ledgerMintScales(this.ledger)),
          }),
        );
      }
    });
    return id;
  }
}
