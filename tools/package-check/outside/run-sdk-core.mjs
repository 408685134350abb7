// Runs sdk-core.mjs with plain node: the input is the JSON file named on the command line.
/* global process, console */
import { readFileSync } from "node:fs";

import { runSdkCore } from "./sdk-core.mjs";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
console.log(JSON.stringify(await runSdkCore(input)));
