/**
 * The settings npm start prints before the commands of another terminal (keys, demo): each one a
 * shell word that gives the command the value the service has, as a shell reads it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

import { loadServiceConfig } from "../config.js";
import { commandSettings } from "../running-service-text.js";

const service = { rpcUrl: "http://127.0.0.1:18899", webUrl: "http://127.0.0.1:18080" };

/** The environment `sh` gives a command written after `words`. */
function environmentAfter(words: string): Record<string, string> {
  const printed = execFileSync("sh", ["-c", `${words}node -p 'JSON.stringify(process.env)'`], {
    env: { PATH: process.env.PATH },
    encoding: "utf8",
  });
  return JSON.parse(printed) as Record<string, string>;
}

test("nothing on the defaults", () => {
  assert.deepEqual(commandSettings(service, loadServiceConfig({}), {}), { keys: "", client: "" });
});

test("a data folder with spaces and quotes reaches the keys command whole", () => {
  const env = { DATA_DIR: "/tmp/my data/it's here" };
  const { keys } = commandSettings(service, loadServiceConfig(env), env);
  assert.equal(keys, `DATA_DIR='/tmp/my data/it'\\''s here' `);
  assert.equal(environmentAfter(keys).DATA_DIR, "/tmp/my data/it's here");
});

test("a PostgreSQL URL is written out, its password as <password>", () => {
  for (const [url, printed] of [
    ["postgres://postgres@127.0.0.1:5432/test", "postgres://postgres@127.0.0.1:5432/test"],
    [
      "postgres://abas:s3cret@db.example.com/abas?sslmode=require",
      "postgres://abas:<password>@db.example.com/abas?sslmode=require",
    ],
  ] as const) {
    const env = { DATABASE_URL: url, DATA_DIR: "/var/abas" };
    const { keys } = commandSettings(service, loadServiceConfig(env), env);
    assert.equal(environmentAfter(keys).DATABASE_URL, printed);
    assert.equal(environmentAfter(keys).DATA_DIR, undefined);
    assert.doesNotMatch(keys, /s3cret/);
  }
});

test("other ports or another ledger: the demo is told the ledger, the program and the web app", () => {
  const env = { PORT: "18080", LEDGER_RPC_PORT: "18899" };
  assert.equal(
    commandSettings(service, loadServiceConfig(env), env).client,
    "RPC_URL=http://127.0.0.1:18899 ABAS_WEB_URL=http://127.0.0.1:18080 ",
  );
  const following = {
    RPC_URL: "https://api.devnet.solana.com",
    PROGRAM_ID: "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN",
  };
  assert.equal(
    commandSettings({ ...service, rpcUrl: following.RPC_URL }, loadServiceConfig(following), following)
      .client,
    "RPC_URL=https://api.devnet.solana.com PROGRAM_ID=5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN ",
  );
});
