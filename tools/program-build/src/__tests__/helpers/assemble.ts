import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTool } from "../../run-tool.js";

export const LLVM_MC = "llvm-mc-22";

/** Assembles BPF assembly into the same kind of ET_REL object llc emits. */
export function assembleBpf(source: string): Uint8Array {
  const directory = mkdtempSync(join(tmpdir(), "sbpf-link-test-"));
  try {
    writeFileSync(join(directory, "input.s"), source);
    runTool(LLVM_MC, [
      "-triple",
      "bpfel",
      "-mcpu=v2",
      "-filetype=obj",
      "-o",
      join(directory, "input.o"),
      join(directory, "input.s"),
    ]);
    return new Uint8Array(readFileSync(join(directory, "input.o")));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
