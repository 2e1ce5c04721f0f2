// Agents and their clocks. Agent 0 is the master (Siracusa: the fabric controller; generic: the only core);
// agents 1..n are the cluster cores. The firmware runs sequentially, so a fork is emulated as: fork() starts the
// team's clocks, then for each core enter(core) and that core's share of the work; barrier() ends a phase (every
// share of the phase has run) and join() ends the team. Clocks are Q16 cycles (see cost.ts).

import { verifyGuards } from "./check";
import { NUM_CLASSES } from "../../runtime/as/cost";
import { barrierCycles, costAt, divisionQ, forkCycles, joinCycles, Q } from "./cost";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { msgLayer, recordShare } from "./events";
import { contentionExtra, npuBusyUntil } from "./npu-contention";
import { addLatency, addStream, anyStreams, simulate, stallOf } from "./banks";

import { MAX_AGENTS } from "./limits";
export { MAX_CORES, MAX_AGENTS } from "./limits";
const MASTER: i32 = 0;
/** `current` between fork/barrier and the next enter, or while every PE sleeps: no agent may charge work there. */
export const NO_AGENT: i32 = -1;

const CLOCK = memory.data(MAX_AGENTS * 8);
const BUSY = memory.data(MAX_AGENTS * 8);
/** Units of work of each cost class over the run, all agents (the cost fit's regressors: scripts/fit-costs.ts). */
const UNITS = memory.data(NUM_CLASSES * 8);

/** Cluster cores of the configured chip (0: the chip has no cluster and the master runs the team's work). */
let clusterCores: i32 = 0;
/** Cores of the current fork; 0 outside a fork. */
let team: i32 = 0;
let current: i32 = NO_AGENT;
let configured = false;
/** SpiNNaker2: the agents are PEs woken by interrupts (pes.ts), not a cluster team. */
let peMode = false;
/** Q16 clock at which the current phase of the team started (fork or the last barrier), and its index. */
let phaseStart: i64 = 0;
let phase: i32 = 0;

// @ts-ignore: decorator
@inline function clockAt(agent: i32): i64 {
  return load<i64>(CLOCK + (<usize>agent << 3));
}

// @ts-ignore: decorator
@inline function setClock(agent: i32, q16: i64): void {
  if (q16 > cycleLimitQ) watchdog(agent);
  store<i64>(CLOCK + (<usize>agent << 3), q16);
}

/**
 * The watchdog: no agent's clock may pass this many Q16 cycles (`gen run --max-cycles`). A firmware that loops
 * through device calls (a wait that never completes, a kernel loop gone wrong) ends with a fault naming the agent and
 * its layer instead of running forever. A loop that never calls the emulator is stopped by the runtime's wall-clock
 * bound instead (runtime/node/run-guarded.ts).
 */
let cycleLimitQ: i64 = i64.MAX_VALUE;

export function set_cycle_limit(cycles: i64): void {
  cycleLimitQ = cycles <= 0 || cycles >= (i64.MAX_VALUE >> Q) ? i64.MAX_VALUE : cycles << Q;
}

function watchdog(agent: i32): void {
  msgBegin("watchdog: agent ");
  msgDec(agent);
  msgText(" passed the cycle limit of ");
  msgDec(cycleLimitQ >> Q);
  msgText(" (raise it with --max-cycles)");
  msgLayer();
  raise();
}

/** `cores`: agents besides agent 0; `pes`: they are SpiNNaker2 PEs rather than cluster cores. */
export function resetAgents(cores: i32, pes: bool = false): void {
  memory.fill(CLOCK, 0, MAX_AGENTS * 8);
  memory.fill(BUSY, 0, MAX_AGENTS * 8);
  memory.fill(UNITS, 0, NUM_CLASSES * 8);
  clusterCores = cores;
  peMode = pes;
  team = 0;
  current = MASTER;
  configured = true;
  phaseStart = 0;
  phase = 0;
}

/** The agent running cluster core `core`: the core itself, or the master on a chip without a cluster. */
function agentOf(core: i32): i32 {
  return clusterCores == 0 ? MASTER : core + 1;
}

export function currentAgent(): i32 {
  return current;
}

/** PE mode: the interrupt protocol (pes.ts) hands the processor to another PE, or to none while all sleep. */
export function setCurrent(agent: i32): void {
  current = agent;
}

export function isPeMode(): bool {
  return peMode;
}

/** An agent's clock in Q16 cycles (for devices that schedule against it, such as the DMA). */
export function clockQ(agent: i32): i64 {
  return clockAt(agent);
}

/** The agent waits (idle, not busy) until `q16`; a time already passed changes nothing. */
export function waitUntil(agent: i32, q16: i64): void {
  if (q16 > clockAt(agent)) setClock(agent, q16);
}

/** The agent spends `q16` cycles of its own work (register accesses of a device call): clock and busy. */
export function spend(agent: i32, q16: i64): void {
  const off = <usize>agent << 3;
  store<i64>(CLOCK + off, load<i64>(CLOCK + off) + q16);
  store<i64>(BUSY + off, load<i64>(BUSY + off) + q16);
}

/** Whole cycles of an agent's clock. */
export function cyclesOf(agent: i32): i64 {
  return clockAt(agent) >> Q;
}

function teamMax(): i64 {
  let t = clockAt(agentOf(0));
  for (let c = 1; c < team; c++) t = max(t, clockAt(agentOf(c)));
  return t;
}

function faultState(op: string, why: string): void {
  msgBegin(op);
  msgText(": ");
  msgText(configured ? why : "the emulator is not configured (call configure first)");
  raise();
}

/** fork(cores): the master starts a team of `cores` cluster cores (0 or more than the chip has: all of them). */
export function fork(cores: i32): i32 {
  if (peMode) {
    faultState("fork", "this chip has no cluster: the scheduler PE wakes worker PEs with irq_raise");
    return 0;
  }
  if (!configured || team != 0 || current != MASTER) {
    faultState("fork", team != 0 ? "nested fork (the cluster is already running a team)" : "fork from a cluster core");
    return 0;
  }
  if (clusterCores == 0) {
    team = 1;
  } else {
    team = cores <= 0 || cores > clusterCores ? clusterCores : cores;
    const start = clockAt(MASTER) + (forkCycles << Q);
    for (let c = 0; c < team; c++) setClock(c + 1, start);
    phaseStart = start;
  }
  phase = 0;
  current = NO_AGENT;
  return team;
}

/** enter(core): the following work runs on team core `core`. */
export function enter(core: i32): void {
  if (team == 0) {
    faultState("enter", "enter outside a fork");
    return;
  }
  if (<u32>core >= <u32>team) {
    msgBegin("enter: core ");
    msgDec(core);
    msgText(" is not in the team of ");
    msgDec(team);
    raise();
    return;
  }
  verifyGuards(); // the core that ran until now: its stores past its tile buffers (check.ts)
  current = agentOf(core);
}

/** barrier(): every share of the phase has run; all team clocks become the latest plus the barrier cost. */
export function barrier(): void {
  if (team == 0) {
    faultState("barrier", "barrier outside a fork");
    return;
  }
  chargeBankStalls();
  recordShares();
  const t = teamMax() + (barrierCycles << Q);
  for (let c = 0; c < team; c++) setClock(agentOf(c), t);
  phaseStart = t;
  phase++;
  current = NO_AGENT;
}

/** join(): the team ends; the master resumes at the latest team clock plus the join cost. */
export function join(): void {
  if (team == 0) {
    faultState("join", "join without a fork");
    return;
  }
  chargeBankStalls();
  recordShares();
  if (clusterCores != 0) setClock(MASTER, teamMax() + (joinCycles << Q));
  team = 0;
  current = MASTER;
}

/**
 * The phase ends: the cores' declared L1 loops are replayed together (banks.ts) and each core's bank-conflict stalls
 * go on its clock, as busy time (the core is stalled inside its loop, as under N-EUREKA contention).
 */
function chargeBankStalls(): void {
  if (clusterCores == 0 || !anyStreams()) return;
  simulate(team);
  for (let c = 0; c < team; c++) {
    const q = stallOf(c);
    if (q > 0) spend(agentOf(c), q);
  }
}

/**
 * mem_stream(addr, step, count, period, index): stream `index` of the current core's inner loop, `count`
 * iterations of `period` cycles with one access at `addr + i x step` each (docs/firmware-abi.md, "Memory streams").
 * L2 accesses are charged at once; L1 streams at the end of the phase (banks.ts). The master's streams are not
 * modelled (the fabric controller reaches L2 at its own speed, and does not share the cluster's banks).
 */
export function mem_stream(addr: usize, step: i32, count: i32, period: i32, index: i32): void {
  const a = accessingCore("mem_stream", "this loop");
  if (a <= 0) return;
  const q = addStream(a - 1, addr, step, count, period, index);
  if (q > 0) spend(a, q);
}

/**
 * mem_latency(addr, count): `count` accesses of the current core whose addresses follow the data (a table read by
 * codes), in the memory of `addr`: L2's latency each, charged at once; no bank slot (docs/firmware-abi.md "Memory
 * streams"). The master's, as its streams, are not modelled.
 */
export function mem_latency(addr: usize, count: i32): void {
  const a = accessingCore("mem_latency", "these accesses");
  if (a <= 0) return;
  const q = addLatency(addr, count);
  if (q > 0) spend(a, q);
}

/**
 * The agent whose declared accesses (`what`) `op` charges: a cluster core (agent > 0); 0 for the master or a PE (not
 * modelled), and a fault with -1 when no agent runs.
 */
function accessingCore(op: string, what: string): i32 {
  const a = current;
  if (a < 0) {
    faultState(op, "no agent runs " + what + ": call enter(core) after fork() or barrier()");
    return -1;
  }
  return a == MASTER || peMode ? 0 : a;
}

/** The profile's per-core events for the phase that ends now (none without a cluster: the master's layer says it all). */
function recordShares(): void {
  if (clusterCores == 0) return;
  for (let c = 0; c < team; c++) recordShare(c + 1, phase, phaseStart >> Q, clockAt(c + 1) >> Q);
}

function computeFault(cls: i32, units: i32): void {
  if (<u32>cls >= <u32>NUM_CLASSES) {
    msgBegin("compute: unknown cost class ");
    msgDec(cls);
    raise();
  }
  workFault("compute", units);
}

/** A device call of work (`op`: compute, divide) given negative units, or made while no agent runs. */
function workFault(op: string, units: i32): void {
  if (units < 0) {
    msgBegin(op + ": negative units ");
    msgDec(units);
    raise();
  }
  faultState(op, "no agent runs this work: call enter(core) after fork() or barrier()");
}

/**
 * divide(units, divisor): the current agent's `units` divisions by `divisor`, at the chip's division time for it
 * (cost.ts divisionQ: on a CV32E40P-class core 3 cycles and the divisor's leading zero bits). Not a cost class: the
 * time is the core's rule, not a fitted table's (the cost fit sees it among the cycles outside compute()).
 */
export function divide(units: i32, divisor: i32): void {
  const a = current;
  if (units < 0 || a < 0) {
    workFault("divide", units);
    return;
  }
  charge(a, <i64>units * divisionQ(divisor));
}

/** The current agent `a` spends `q` Q16 cycles of work: the NPU's contention, the watchdog, its clock and busy time. */
// @ts-ignore: decorator
@inline function charge(a: i32, q: i64): void {
  const off = <usize>a << 3;
  const clock = load<i64>(CLOCK + off);
  // A cluster core working while an N-EUREKA job streams through L1 is slowed (npu-contention.ts); one compare
  // when no job is running. Only Siracusa has jobs, so agents > 0 are its cluster cores.
  if (npuBusyUntil > clock && a > 0) q += contentionExtra(clock, q);
  if (clock + q > cycleLimitQ) watchdog(a);
  store<i64>(CLOCK + off, clock + q);
  store<i64>(BUSY + off, load<i64>(BUSY + off) + q);
}

/** compute(cls, units): the current agent spends `units` of cost class `cls`. The hot device call. */
export function compute(cls: i32, units: i32): void {
  const a = current;
  if (<u32>cls >= <u32>NUM_CLASSES || units < 0 || a < 0) {
    computeFault(cls, units);
    return;
  }
  charge(a, <i64>units * costAt(cls));
  const u = UNITS + (<usize>cls << 3);
  store<i64>(u, load<i64>(u) + <i64>units);
}

/** cycles(): the current agent's clock; between shares, the latest clock of the team. */
export function cycles(): i64 {
  if (current < 0) return team > 0 ? teamMax() >> Q : 0;
  return cyclesOf(current);
}

// --- runtime exports ---

/** Cluster cores of the configured chip (0: none, the master runs forked work). */
export function core_count(): i32 {
  return clusterCores;
}

export function agent_count(): i32 {
  return 1 + clusterCores;
}

export function total_cycles(): i64 {
  return cyclesOf(MASTER);
}

export function agent_cycles(agent: i32): i64 {
  if (<u32>agent >= <u32>(1 + clusterCores)) return -1;
  return cyclesOf(agent);
}

/** Units of cost class `cls` that compute() was given over the run, all agents; -1 for an unknown class. */
export function units_of(cls: i32): i64 {
  if (<u32>cls >= <u32>NUM_CLASSES) return -1;
  return load<i64>(UNITS + (<usize>cls << 3));
}

/** Cycles the agent spent in compute(), excluding waits at fork, barrier and join. */
export function agent_busy(agent: i32): i64 {
  if (<u32>agent >= <u32>(1 + clusterCores)) return -1;
  return load<i64>(BUSY + (<usize>agent << 3)) >> Q;
}
