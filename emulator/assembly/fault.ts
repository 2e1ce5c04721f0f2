// Fault messages. A fault records one line of ASCII and traps; the runtime reads the line through
// fault_message()/fault_message_length() after catching the trap. The text is formatted into a fixed static
// buffer because the emulator never allocates: with the stub runtime every allocation would stay forever and
// creep towards the firmware's window (docs/firmware-abi.md, "One linear memory").

const MSG_CAP: i32 = 480;
const MSG = memory.data(MSG_CAP);
let msgLen: i32 = 0;

export function fault_message(): usize {
  return MSG;
}

export function fault_message_length(): i32 {
  return msgLen;
}

export function clearFault(): void {
  msgLen = 0;
}

/** Starts a new message. */
export function msgBegin(text: string): void {
  msgLen = 0;
  msgText(text);
}

/** Appends text; only the low byte of each UTF-16 unit is kept (every message the emulator writes is ASCII). */
export function msgText(text: string): void {
  const n = text.length;
  for (let i = 0; i < n && msgLen < MSG_CAP; i++) {
    store<u8>(MSG + <usize>msgLen, <u8>text.charCodeAt(i));
    msgLen++;
  }
}

function msgByte(b: i32): void {
  if (msgLen < MSG_CAP) {
    store<u8>(MSG + <usize>msgLen, <u8>b);
    msgLen++;
  }
}

/** Appends `0x` and eight lower-case hex digits: addresses read the same width everywhere. */
export function msgHex(v: u32): void {
  msgText("0x");
  for (let shift = 28; shift >= 0; shift -= 4) {
    const d = <i32>((v >> <u32>shift) & 15);
    msgByte(d < 10 ? 48 + d : 87 + d);
  }
}

export function msgDec(v: i64): void {
  if (v < 0) {
    msgByte(45);
    // -(i64.MIN) overflows; no count the emulator reports gets near it
    v = -v;
  }
  let div: i64 = 1;
  while (div <= v / 10) div *= 10;
  while (div > 0) {
    msgByte(48 + <i32>(v / div));
    v %= div;
    div /= 10;
  }
}

/** Ends the message and traps. Callers `return` after it only to satisfy the compiler's flow analysis. */
export function raise(): void {
  unreachable();
}

/** A one-piece fault. */
export function fault(text: string): void {
  msgBegin(text);
  raise();
}

/**
 * The emulator's `abort` (asconfig.json: use abort=emulator/assembly/fault/emu_abort), so an assertion in the
 * emulator becomes a readable fault instead of a call to an import nobody provides.
 */
export function emu_abort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  msgBegin("emulator abort: ");
  if (message !== null) msgText(message);
  if (fileName !== null) {
    msgText(" at ");
    msgText(fileName);
    msgText(":");
    msgDec(line);
    msgText(":");
    msgDec(column);
  }
  raise();
}
