/** DRAM addresses the encoder of a layer asks for once the image is placed (image.ts). */
export interface Addresses {
  /** Address of the layer's i-th constant blob (in its configuration's constant area). */
  constant(i: number): number;
  /** Address of a tensor in data memory. */
  tensor(name: string): number;
}

/**
 * One layer of the chain, before placement: its type, workers and block sizes (fixed, so the chain can be laid out),
 * its constants, and the encoder that writes parameters and worker blocks once every address is known.
 */
export interface LayerEncoding {
  type: number;
  workers: number;
  paramBytes: number;
  blockBytes: number;
  consts: Uint8Array[];
  encode(addr: Addresses): { params: Uint8Array; blocks: Uint8Array[] };
}
