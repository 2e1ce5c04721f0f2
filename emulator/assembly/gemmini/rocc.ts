// The RoCC interface of Gemmini in the device API: the firmware (AS, or later the RISC-V core model) issues each
// custom instruction as gemmini_rocc(funct, rs1, rs2), with the funct values and register encodings of gemmini.h
// (docs/gemmini.md has the table), and waits for the accelerator with gemmini_fence() (the `fence` gemmini.h issues).

import { fail, failValue } from "./faults";
import { config, configUnit, resetGemminiConfig } from "./config";
import { mvin, mvout, resetGemminiMoves } from "./move";
import { compute, preload, resetGemminiArray } from "./array";
import { loopWs, loopWsConfig, resetGemminiLoop } from "./loop-ws";
import { loopConv, loopConvConfig, resetGemminiConv } from "./loop-conv";
import { busyUntil, complete, dispatch, fence, issueOnly, resetGemminiTiming } from "./timing";
import { gemminiPlaced, placeGemmini, resetGemminiState } from "./state";
import { cyclesOf } from "../agents";
import { msgBegin, msgDec, msgText, raise } from "../fault";

export const K_CONFIG: i32 = 0;
export const K_MVIN2: i32 = 1;
export const K_MVIN: i32 = 2;
export const K_MVOUT: i32 = 3;
export const K_COMPUTE_PRELOADED: i32 = 4;
export const K_COMPUTE_ACCUMULATE: i32 = 5;
export const K_PRELOAD: i32 = 6;
export const K_FLUSH: i32 = 7;
export const K_LOOP_WS: i32 = 8;
export const K_LOOP_WS_CONFIG_STRIDES_DC: i32 = 13;
export const K_MVIN3: i32 = 14;
export const K_LOOP_CONV_WS: i32 = 15;
export const K_LOOP_CONV_WS_CONFIG_6: i32 = 21;
export const K_COUNTER: i32 = 126;

/** Called by configure for every chip: only Gemmini places the private memories. */
export function resetGemmini(): void {
  resetGemminiState();
  resetGemminiConfig();
  resetGemminiMoves();
  resetGemminiArray();
  resetGemminiLoop();
  resetGemminiConv();
  resetGemminiTiming();
}

/** Gemmini's configure step, after the regions are placed. */
export function enableGemmini(): void {
  placeGemmini();
}

export function gemmini_rocc(funct: i32, rs1: u64, rs2: u64): void {
  if (!gemminiPlaced()) fail("rocc", "this chip has no Gemmini (configure platform 3)");
  if (funct == K_CONFIG) {
    const unit = configUnit(rs1);
    const t = dispatch(unit);
    config(rs1, rs2);
    complete(unit, t);
  } else if (funct == K_MVIN) mvin(0, funct, rs1, rs2);
  else if (funct == K_MVIN2) mvin(1, funct, rs1, rs2);
  else if (funct == K_MVIN3) mvin(2, funct, rs1, rs2);
  else if (funct == K_MVOUT) mvout(rs1, rs2);
  else if (funct == K_PRELOAD) preload(rs1, rs2);
  else if (funct == K_COMPUTE_PRELOADED) compute(true, rs1, rs2);
  else if (funct == K_COMPUTE_ACCUMULATE) compute(false, rs1, rs2);
  else if (funct == K_FLUSH) flush();
  else if (funct >= K_LOOP_WS && funct <= K_LOOP_WS_CONFIG_STRIDES_DC || funct >= K_LOOP_CONV_WS && funct <= K_LOOP_CONV_WS_CONFIG_6) {
    // the loop unroller's commands: the host's issue cost, then the unroller takes over (timing.ts)
    issueOnly();
    if (funct == K_LOOP_WS) loopWs(rs1, rs2);
    else if (funct == K_LOOP_CONV_WS) loopConv(rs1, rs2);
    else if (funct < K_LOOP_CONV_WS) loopWsConfig(funct, rs1, rs2);
    else loopConvConfig(funct, rs1, rs2);
  } else if (funct == K_COUNTER) fail("counter", "the performance counters (funct 126) are not modelled");
  else failValue("rocc", "unknown funct ", funct, "");
}

/** flush (TLB flush): no TLB is modelled (main memory is addressed physically); only the host's issue cost. */
function flush(): void {
  issueOnly();
}

/** The host waits until every command issued so far has completed (its results are in main memory). */
export function gemmini_fence(): void {
  if (!gemminiPlaced()) fail("fence", "this chip has no Gemmini (configure platform 3)");
  fence();
}

/**
 * The runtime's check after the firmware returns: commands still running then mean the firmware read its results
 * without a fence (on the chip they would not be in main memory yet; here they are, since commands act at once).
 */
export function gemmini_finish(): void {
  if (!gemminiPlaced()) return;
  const host = cyclesOf(0);
  const busy = busyUntil();
  if (busy > host) {
    msgBegin("gemmini: commands still running when the firmware returned (busy until cycle ");
    msgDec(busy);
    msgText(", the host at ");
    msgDec(host);
    msgText("): gemmini_fence before reading their results");
    raise();
  }
}

/** Cycle by which every command issued so far completes, for tests and the profile. */
export function gemmini_busy_until(): i64 {
  return busyUntil();
}
