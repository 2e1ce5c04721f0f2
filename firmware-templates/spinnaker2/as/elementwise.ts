// The elementwise layer on a worker (not generated yet: the generator rejects elementwise nodes on spinnaker2).

export function elementwise_run(me: usize, p: usize, block: usize): void {
  abort("elementwise layers are not supported yet");
}
