// SpiNNaker2's scheduler/worker protocol, emulated in phases. The firmware is one module that runs sequentially, so
// the chip's concurrency is rebuilt from clocks (docs/timing.md, "SpiNNaker2"):
//   1. the running PE (the scheduler) sends interrupt packets (irq_raise): each names a sleeping PE, a key and a
//      32-bit payload, and arrives NOC_LATENCY after it is sent;
//   2. the firmware's HAL then runs each interrupted PE in turn (irq_next, pe_wake): the woken PE's clock jumps to
//      max(its own clock, the arrival) + the exception entry, and its handler runs on that clock;
//   3. a handler ends with pe_signal(to): a completion packet to the scheduler, after which the PE sleeps (no agent
//      runs until the next pe_wake or pe_wait);
//   4. pe_wait(n) resumes the scheduler once n completion packets have arrived: its clock becomes the n-th arrival
//      plus the exception entry, or stays where it was if it is later.
// Misuse (waking a PE without an interrupt, waiting for signals nobody sent, a PE that signals with DMA or MLA work
// still open) is a fault naming the PE and the layer.

import { clockQ, currentAgent, isPeMode, MAX_AGENTS, NO_AGENT, setCurrent, spend, waitUntil, agent_count } from "./agents";
import { Q } from "./cost";
import { msgLayer } from "./events";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { peDmaOpen } from "./pe-dma";
import { mlaOpen } from "./mla";
import { S2_IRQ_ENTRY, S2_NOC_LATENCY, S2_NOC_SEND } from "./chips/spinnaker2";

const NONE: i64 = -1;
/** Per PE: arrival time (Q16) of its pending interrupt, or NONE; its key and payload; the last one it took. */
const PENDING = memory.data(MAX_AGENTS * 8);
const KEY = memory.data(MAX_AGENTS * 4);
const PAYLOAD = memory.data(MAX_AGENTS * 4);
/** Interrupted PEs in the order they were raised; `taken` of them have been woken. */
const ORDER = memory.data(MAX_AGENTS * 4);
/** Arrival times (Q16) of completion packets at the dispatcher, not yet consumed by pe_wait. */
const SIGNALS = memory.data(MAX_AGENTS * 8);

let raised: i32 = 0;
let taken: i32 = 0;
let signals: i32 = 0;
/** The PE that raised the interrupts of this round and resumes at pe_wait. */
let dispatcher: i32 = 0;

export function resetPes(): void {
  for (let i = 0; i < MAX_AGENTS; i++) store<i64>(PENDING + (<usize>i << 3), NONE);
  memory.fill(KEY, 0, MAX_AGENTS * 4);
  memory.fill(PAYLOAD, 0, MAX_AGENTS * 4);
  raised = 0;
  taken = 0;
  signals = 0;
  dispatcher = 0;
}

/**
 * PEs sharing the DRAM's bandwidth now (pe-dma.ts): the PEs interrupted in the current round, whose handlers run
 * side by side on the chip while the dispatcher sleeps; outside a round, the one running PE.
 */
export function activePes(): i32 {
  return raised > 0 ? raised : 1;
}

function fail(op: string, why: string, pe: i32): void {
  msgBegin(op);
  msgText(": ");
  if (pe >= 0) {
    msgText("PE ");
    msgDec(pe);
    msgText(" ");
  }
  msgText(why);
  msgLayer();
  raise();
}

function running(op: string): i32 {
  if (!isPeMode()) fail(op, "needs a chip of PEs (spinnaker2)", -1);
  const a = currentAgent();
  if (a == NO_AGENT) fail(op, "no PE is running (every PE sleeps: pe_wake or pe_wait first)", -1);
  return a;
}

function checkPe(op: string, pe: i32): void {
  if (pe < 0 || pe >= agent_count()) {
    msgBegin(op);
    msgText(": PE ");
    msgDec(pe);
    msgText(" does not exist (0..");
    msgDec(agent_count() - 1);
    msgText(")");
    raise();
  }
}

/** The running PE sends an interrupt packet to sleeping PE `pe`, with a key and a 32-bit payload. */
export function irq_raise(pe: i32, key: i32, payload: u32): void {
  const a = running("irq_raise");
  checkPe("irq_raise", pe);
  if (pe == a) fail("irq_raise", "cannot interrupt itself", pe);
  if (load<i64>(PENDING + (<usize>pe << 3)) != NONE) fail("irq_raise", "already has an interrupt pending", pe);
  if (raised > 0 && a != dispatcher) fail("irq_raise", "raises while another PE's round is open", a);
  if (raised == 0) dispatcher = a;
  spend(a, S2_NOC_SEND << Q);
  store<i64>(PENDING + (<usize>pe << 3), clockQ(a) + (S2_NOC_LATENCY << Q));
  store<i32>(KEY + (<usize>pe << 2), key);
  store<u32>(PAYLOAD + (<usize>pe << 2), payload);
  store<i32>(ORDER + (<usize>raised << 2), pe);
  raised++;
}

/** The next interrupted PE not yet woken, in the order raised; -1 when every one has run. */
export function irq_next(): i32 {
  return taken < raised ? load<i32>(ORDER + (<usize>taken << 2)) : -1;
}

/** PE `pe` takes its pending interrupt: it runs from max(its clock, the arrival) + the exception entry. */
export function pe_wake(pe: i32): void {
  if (!isPeMode()) fail("pe_wake", "needs a chip of PEs (spinnaker2)", -1);
  checkPe("pe_wake", pe);
  const a = currentAgent();
  if (a != NO_AGENT && a != dispatcher) fail("pe_wake", "is still running: it must signal before another PE runs", a);
  if (irq_next() != pe) {
    fail("pe_wake", irq_next() < 0 ? "has no interrupt pending" : "is not the next interrupted PE (wake them in the order raised)", pe);
  }
  const at = load<i64>(PENDING + (<usize>pe << 3));
  store<i64>(PENDING + (<usize>pe << 3), NONE);
  taken++;
  waitUntil(pe, at);
  spend(pe, S2_IRQ_ENTRY << Q);
  setCurrent(pe);
}

/** Key of the interrupt the running PE took last. */
export function irq_key(): i32 {
  return load<i32>(KEY + (<usize>running("irq_key") << 2));
}

/** Payload of the interrupt the running PE took last. */
export function irq_payload(): u32 {
  return load<u32>(PAYLOAD + (<usize>running("irq_payload") << 2));
}

/** The running PE sends a completion packet to PE `to` (the dispatcher) and sleeps. */
export function pe_signal(to: i32): void {
  const a = running("pe_signal");
  checkPe("pe_signal", to);
  if (a == dispatcher) fail("pe_signal", "is the scheduler of this round: it waits, it does not signal", a);
  if (to != dispatcher) fail("pe_signal", "signals a PE that did not interrupt it", a);
  const open = peDmaOpen(a);
  if (open > 0) fail("pe_signal", "signals with DMA transfers not waited for", a);
  if (mlaOpen(a)) fail("pe_signal", "signals with an MLA job not waited for", a);
  spend(a, S2_NOC_SEND << Q);
  store<i64>(SIGNALS + (<usize>signals << 3), clockQ(a) + (S2_NOC_LATENCY << Q));
  signals++;
  setCurrent(NO_AGENT);
}

/**
 * The dispatcher sleeps until `n` completion packets have arrived and resumes (the n earliest are consumed). Every
 * interrupted PE must have run first: the HAL wakes them all (irq_next/pe_wake) before it waits.
 */
export function pe_wait(n: i32): void {
  if (!isPeMode()) fail("pe_wait", "needs a chip of PEs (spinnaker2)", -1);
  const a = currentAgent();
  if (a != NO_AGENT && a != dispatcher) fail("pe_wait", "is still running: it never signalled completion", a);
  if (taken < raised) fail("pe_wait", "was interrupted but never ran (wake every PE before waiting)", irq_next());
  if (n < 0 || n > signals) {
    msgBegin("pe_wait: waits for ");
    msgDec(n);
    msgText(" completion signals, ");
    msgDec(signals);
    msgText(" arrived");
    raise();
  }
  // Selection of the n earliest arrivals (n is at most the PEs of one round).
  let at: i64 = 0;
  for (let k = 0; k < n; k++) {
    let best = k;
    for (let i = k + 1; i < signals; i++) {
      if (load<i64>(SIGNALS + (<usize>i << 3)) < load<i64>(SIGNALS + (<usize>best << 3))) best = i;
    }
    const t = load<i64>(SIGNALS + (<usize>best << 3));
    store<i64>(SIGNALS + (<usize>best << 3), load<i64>(SIGNALS + (<usize>k << 3)));
    store<i64>(SIGNALS + (<usize>k << 3), t);
    at = t;
  }
  for (let i = n; i < signals; i++) store<i64>(SIGNALS + (<usize>(i - n) << 3), load<i64>(SIGNALS + (<usize>i << 3)));
  signals -= n;
  setCurrent(dispatcher);
  if (n > 0 && at > clockQ(dispatcher)) {
    waitUntil(dispatcher, at);
    spend(dispatcher, S2_IRQ_ENTRY << Q);
  }
  if (signals == 0) {
    raised = 0;
    taken = 0;
  }
}

/** The running PE's number (0 the scheduler); -1 while every PE sleeps. */
export function pe_id(): i32 {
  return currentAgent();
}

/** PEs of the configured chip (scheduler included). */
export function pe_count(): i32 {
  return isPeMode() ? agent_count() : 0;
}

/** After the firmware returns: every interrupt was taken and every completion consumed. */
export function pe_finish(): void {
  if (!isPeMode()) return;
  if (taken < raised) fail("pe_finish: the firmware ended while", "still had an interrupt pending", irq_next());
  if (signals > 0) {
    msgBegin("pe_finish: the firmware ended with ");
    msgDec(signals);
    msgText(" completion signal(s) never waited for");
    raise();
  }
}
