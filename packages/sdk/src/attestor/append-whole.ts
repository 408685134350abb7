/**
 * Appends text to a file open for appending, whole or not at all. A write the disk cuts short (a
 * full disk takes part of a line, then refuses the rest) is taken back: the file is cut to its
 * size before the append and the error is thrown, so the file stays made of whole lines and the
 * next append does not glue onto a torn one. A line another thread appends to the same file
 * between the short write and its taking back would be cut instead: the attestor's two threads
 * both append to its queue, so this relies on a full disk failing both of them alike.
 */
import { fstatSync, ftruncateSync, writeSync } from "node:fs";

export function appendWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  let written = 0;
  try {
    while (written < bytes.length) {
      const count = writeSync(fd, bytes, written);
      if (count === 0) throw new Error("the file system took none of the bytes written");
      written += count;
    }
  } catch (error) {
    if (written > 0) ftruncateSync(fd, fstatSync(fd).size - written);
    throw error;
  }
}
