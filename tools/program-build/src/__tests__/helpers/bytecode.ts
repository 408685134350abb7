/** Raw SBPF instructions for tests that need encodings no assembler would produce. */

export interface InstructionFields {
  destination?: number;
  source?: number;
  offset?: number;
  immediate?: number;
}

export function encodeInstruction(
  opcode: number,
  { destination = 0, source = 0, offset = 0, immediate = 0 }: InstructionFields = {},
): Uint8Array {
  const bytes = new Uint8Array(8);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, opcode);
  view.setUint8(1, (source << 4) | destination);
  view.setInt16(2, offset, true);
  view.setInt32(4, immediate | 0, true);
  return bytes;
}

/** The instruction as an assembler `.quad` directive (little-endian, like the instruction stream). */
export function quadDirective(instruction: Uint8Array): string {
  const value = new DataView(instruction.buffer, instruction.byteOffset, 8).getBigUint64(0, true);
  return `.quad 0x${value.toString(16)}`;
}
