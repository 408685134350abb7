/**
 * Files the ledger reads from its own package. In the repository it runs from its TypeScript
 * sources and takes the program the repository builds; the published package runs from `dist/`
 * and carries its copy of that program (`npm run build` puts it in `program/`).
 */
import { fileURLToPath } from "node:url";

const RUNNING_FROM_SOURCE = import.meta.url.endsWith(".ts");

/** The ABAS program deployed at genesis by default. */
export const BUNDLED_PROGRAM_PATH = fileURLToPath(
  new URL(
    RUNNING_FROM_SOURCE ? "../../../program/dist/abas_attestation.so" : "../program/abas_attestation.so",
    import.meta.url,
  ),
);

/** The keypair of the fixed local program address `5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN`. */
export const PROGRAM_KEYPAIR_PATH = fileURLToPath(new URL("../keys/program-keypair.json", import.meta.url));

/** `abas-ledger` itself, and the `node` arguments that run it as this module is run. */
export const LEDGER_BIN_PATH = fileURLToPath(
  new URL(RUNNING_FROM_SOURCE ? "./bin.ts" : "./bin.js", import.meta.url),
);
export const LEDGER_NODE_ARGS: readonly string[] = RUNNING_FROM_SOURCE
  ? ["--import", import.meta.resolve("tsx"), LEDGER_BIN_PATH]
  : [LEDGER_BIN_PATH];
