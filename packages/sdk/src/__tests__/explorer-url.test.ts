import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { getAddressExplorerUrl, getExplorerCluster, getTransactionExplorerUrl } from "../explorer-url.js";

const SIGNATURE = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";

describe("explorer URLs", () => {
  it("names devnet, testnet and mainnet-beta by their public RPC hosts", () => {
    assert.equal(
      getTransactionExplorerUrl(SIGNATURE, "https://api.devnet.solana.com"),
      `https://explorer.solana.com/tx/${SIGNATURE}?cluster=devnet`,
    );
    assert.equal(
      getTransactionExplorerUrl(SIGNATURE, "https://api.testnet.solana.com"),
      `https://explorer.solana.com/tx/${SIGNATURE}?cluster=testnet`,
    );
    // mainnet-beta is the Explorer's default: no query at all
    assert.equal(
      getTransactionExplorerUrl(SIGNATURE, "https://api.mainnet-beta.solana.com"),
      `https://explorer.solana.com/tx/${SIGNATURE}`,
    );
  });

  it("recognises providers that name the cluster in the host name", () => {
    assert.equal(getExplorerCluster("https://devnet.helius-rpc.com/?api-key=k"), "devnet");
    assert.equal(getExplorerCluster("https://solana-mainnet.g.alchemy.com/v2/k"), "mainnet-beta");
    assert.equal(getExplorerCluster("https://mainnet.helius-rpc.com"), "mainnet-beta");
    // a word merely containing "devnet" is not the cluster name
    assert.equal(getExplorerCluster("https://mydevnetwork.example.com"), "custom");
  });

  it("points the Explorer at a node on this machine as a custom cluster, its address without credentials", () => {
    assert.equal(
      getTransactionExplorerUrl(SIGNATURE, "http://127.0.0.1:8899"),
      `https://explorer.solana.com/tx/${SIGNATURE}?cluster=custom&customUrl=http%3A%2F%2F127.0.0.1%3A8899`,
    );
    assert.equal(
      getAddressExplorerUrl(
        "11111111111111111111111111111111",
        "http://user:secret@localhost:9000/rpc?api-key=k#x",
      ),
      "https://explorer.solana.com/address/11111111111111111111111111111111?cluster=custom&customUrl=http%3A%2F%2Flocalhost%3A9000%2Frpc",
    );
    assert.equal(
      getTransactionExplorerUrl(SIGNATURE, "http://[::1]:8899/"),
      `https://explorer.solana.com/tx/${SIGNATURE}?cluster=custom&customUrl=http%3A%2F%2F%5B%3A%3A1%5D%3A8899`,
    );
  });

  it("names any other node only as a custom cluster: a shared link never carries its address or key", () => {
    for (const rpcUrl of [
      "https://rpc.ankr.com/solana/0123456789abcdef",
      "https://go.getblock.io/secret-token",
      "https://node.example.com/?api-key=SECRET",
      "https://user:pass@node.example.com",
      "not a url",
    ]) {
      assert.equal(
        getTransactionExplorerUrl(SIGNATURE, rpcUrl),
        `https://explorer.solana.com/tx/${SIGNATURE}?cluster=custom`,
        rpcUrl,
      );
    }
  });
});
