import { createRequire } from 'node:module';
import type onnxProto from 'onnx-proto';

/*
 * onnx-proto (protobufjs static code, 330 KB) encodes ONNX (save.ts); reading has its own decoder (decode.ts). It is
 * required on first use, so a command that only reads models never sets protobufjs up (~15 ms of `gen firmware`'s
 * start, node --cpu-prof). Required rather than imported: as an ES module, Node would first lex the whole CommonJS
 * file for its named exports.
 */
let loaded: typeof onnxProto.onnx | undefined;

export function onnx(): typeof onnxProto.onnx {
  loaded ??= (createRequire(import.meta.url)('onnx-proto') as typeof onnxProto).onnx;
  return loaded;
}
