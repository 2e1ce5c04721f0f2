// Loader of ELF32 little-endian RISC-V executables: every PT_LOAD segment is copied to its physical (load)
// address through the region table and the rest of its memory size is zeroed; executable segments become code
// windows at their virtual (run) address. The image sits in linear memory (the host copies it there).

import { addWindow, findRegion, invalidateCode, linearOf } from "./memory";
import * as F from "./faults";
import { flushCaches } from "./core";

const PT_LOAD: u32 = 1;
const PF_X: u32 = 1;
const EM_RISCV: u16 = 243;
const ET_EXEC: u16 = 2;

let entry: u32 = 0;

function bad(reason: i32, where: u32): i32 {
  F.record(F.FAULT_ELF, 0, 0, 0, where, reason, findRegion(where, 1));
  return -1;
}

/** Loads the image at linear `ptr` (`len` bytes); 0 on success (entry point: elfEntry()), -1 with a fault record. */
export function loadElf(ptr: usize, len: u32): i32 {
  if (len < 52 || load<u32>(ptr) != 0x464c457f || load<u8>(ptr + 4) != 1 || load<u8>(ptr + 5) != 1) {
    return bad(F.ELF_NOT_ELF32_LE, 0);
  }
  if (load<u16>(ptr + 18) != EM_RISCV || load<u16>(ptr + 16) != ET_EXEC) return bad(F.ELF_NOT_RISCV_EXEC, 16);
  entry = load<u32>(ptr + 24);
  const phoff = load<u32>(ptr + 28);
  const phentsize = <u32>load<u16>(ptr + 42);
  const phnum = <u32>load<u16>(ptr + 44);
  if (phentsize < 32 || <u64>phoff + <u64>phentsize * <u64>phnum > <u64>len) return bad(F.ELF_TRUNCATED, phoff);
  for (let i: u32 = 0; i < phnum; i++) {
    const ph = ptr + <usize>(phoff + i * phentsize);
    if (load<u32>(ph) != PT_LOAD) continue;
    const offset = load<u32>(ph + 4);
    const vaddr = load<u32>(ph + 8);
    const paddr = load<u32>(ph + 12);
    const filesz = load<u32>(ph + 16);
    const memsz = load<u32>(ph + 20);
    const flags = load<u32>(ph + 24);
    if (memsz == 0) continue;
    if (<u64>offset + <u64>filesz > <u64>len || filesz > memsz) return bad(F.ELF_TRUNCATED, offset);
    const dst = linearOf(paddr, memsz);
    if (dst == 0) return bad(F.ELF_OUTSIDE_REGIONS, paddr);
    memory.copy(dst, ptr + <usize>offset, filesz);
    memory.fill(dst + <usize>filesz, 0, memsz - filesz);
    invalidateCode(paddr, memsz);
    if ((flags & PF_X) != 0 && addWindow(vaddr, memsz) < 0) return bad(F.ELF_NO_CODE_WINDOW, vaddr);
  }
  flushCaches();
  return 0;
}

export function elfEntry(): u32 {
  return entry;
}
