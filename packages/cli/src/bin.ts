#!/usr/bin/env node
/** `abas`: the ABAS command-line tool (see docs/cli.md). */
import { runCli } from "./cli.js";

process.exitCode = await runCli(process.argv.slice(2));
