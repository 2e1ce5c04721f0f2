// check(ptr, bytes, write): a kernel's buffer must lie inside one region of the chip. Anything else (the
// firmware's own window, a hole between regions, a buffer running past a region's end) is a fault that names
// the address, the region and the current layer.

import { msgLayer } from "./events";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { msgAddress, regionAt, region_size, region_linear_base } from "./regions";

export function check(ptr: usize, bytes: i32, write: i32): void {
  const r = regionAt(ptr);
  if (r >= 0 && bytes >= 0 && <u64>(ptr - region_linear_base(r)) + <u64>bytes <= <u64>region_size(r)) return;
  checkFault(ptr, bytes, write, r);
}

function checkFault(ptr: usize, bytes: i32, write: i32, r: i32): void {
  msgBegin("check: ");
  msgText(write != 0 ? "write of " : "read of ");
  msgDec(bytes);
  msgText(" bytes at ");
  msgAddress(ptr, r);
  if (r >= 0) {
    msgText(bytes < 0 ? ", negative size" : ", runs past its end by ");
    if (bytes >= 0) {
      msgDec(<i64>(ptr - region_linear_base(r)) + <i64>bytes - <i64>region_size(r));
      msgText(" bytes");
    }
  }
  msgText(")");
  msgLayer();
  raise();
}
