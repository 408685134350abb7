import assert from "node:assert/strict";
import { test } from "node:test";

import { ledgerAddressForLog } from "../ledger-address.js";

test("the logged ledger address is the RPC URL's origin, without a path, query or user that may hold a key", () => {
  assert.equal(ledgerAddressForLog("http://127.0.0.1:8899"), "http://127.0.0.1:8899");
  assert.equal(ledgerAddressForLog("https://api.devnet.solana.com/"), "https://api.devnet.solana.com");
  assert.equal(ledgerAddressForLog("https://rpc.example.com/v2/secret-key"), "https://rpc.example.com/…");
  assert.equal(ledgerAddressForLog("https://rpc.example.com/?api-key=secret"), "https://rpc.example.com/…");
  assert.equal(ledgerAddressForLog("https://user:secret@rpc.example.com"), "https://rpc.example.com");
});
