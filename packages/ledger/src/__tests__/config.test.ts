/**
 * `abas-ledger` flags and environment variables: defaults, precedence, and clear refusals.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { ConfigError, DEFAULT_PROGRAM_PATH, parseCommandLine } from "../config.js";

const parse = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = parseCommandLine(argv, env, "/home/user/project");
  assert.equal(parsed.help, false);
  return parsed.config;
};

test("defaults: 127.0.0.1:8899 and 8900, 400 ms slots, .data/ledger under the working directory", () => {
  const config = parse([]);
  assert.equal(config.host, "127.0.0.1");
  assert.equal(config.rpcPort, 8899);
  assert.equal(config.wsPort, 8900);
  assert.equal(config.slotMs, 400);
  assert.equal(config.dataDir, "/home/user/project/.data/ledger");
  assert.equal(config.programPath, DEFAULT_PROGRAM_PATH);
  assert.equal(config.reset, false);
});

test("flags win over environment variables, in both --flag value and --flag=value forms", () => {
  const config = parse(["--rpc-port=9000", "--data-dir", "/var/ledger", "--reset"], {
    LEDGER_RPC_PORT: "7000",
    LEDGER_SLOT_MS: "10",
    LEDGER_DATA_DIR: "/elsewhere",
    LOG_LEVEL: "DEBUG",
  });
  assert.equal(config.rpcPort, 9000);
  assert.equal(config.wsPort, 9001);
  assert.equal(config.slotMs, 10);
  assert.equal(config.dataDir, "/var/ledger");
  assert.equal(config.reset, true);
  assert.equal(config.logLevel, "debug");
});

test("port 0 picks free ports for both servers", () => {
  const config = parse(["--rpc-port", "0"]);
  assert.equal(config.rpcPort, 0);
  assert.equal(config.wsPort, 0);
});

test("invalid values are refused with a message that names them", () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--rpc-port", "http"], {}, /the RPC port \(--rpc-port\) must be a whole number, got "http"/],
    [["--rpc-port", "70000"], {}, /the RPC port must be an integer from 0 to 65535/],
    [["--slot-ms", "0"], {}, /slot duration in milliseconds must be an integer from 1/],
    [["--ws-port", "8899"], {}, /RPC and WebSocket ports must differ/],
    [["--colour"], {}, /unknown argument "--colour"/],
    [["--data-dir"], {}, /--data-dir needs a value/],
    [[], { LEDGER_SLOT_MS: "fast" }, /--slot-ms\) must be a whole number/],
    [[], { LOG_LEVEL: "loud" }, /LOG_LEVEL must be one of debug, info, warn, error, silent/],
  ];
  for (const [argv, env, message] of cases) {
    assert.throws(
      () => parseCommandLine(argv, env),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `${argv.join(" ")} throws a ConfigError`);
        assert.match(error.message, message);
        return true;
      },
    );
  }
});

test("--help asks for the usage text", () => {
  assert.deepEqual(parseCommandLine(["--rpc-port", "1", "--help"], {}), { help: true });
});
