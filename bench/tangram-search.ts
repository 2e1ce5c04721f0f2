/**
 * `npm run bench:tangram-search`: seconds the Tangram dataflow search takes on a 50-layer-class CNN (ResNet-50:
 * conv, projection, Add and pool layers in topological order, batch 64), per objective, with the optimised
 * strategy (buffer sharing + alternate-loop pipelining, segments of up to 8 layers). One JSON line per measurement.
 */
import { TANGRAM_DEFAULT } from '../generator/platforms/tangram/hardware.js';
import { searchDataflow } from '../generator/platforms/tangram/search.js';
import type { Objective } from '../generator/platforms/tangram/partition.js';
import { resnet50 } from './tangram/networks.js';

const layers = resnet50();
for (const objective of ['time', 'energy', 'edp'] as Objective[]) {
  const t0 = performance.now();
  const plan = searchDataflow(layers, TANGRAM_DEFAULT, { batch: 64, strategy: { sharing: true, pipelining: 'allo', objective } });
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ name: `tangram search resnet50 (${layers.length} layers) ${objective}`, figure: Number(seconds.toPrecision(3)), unit: 's', reference: 'issue 18: seconds for a 50-layer CNN', segments: plan.segments.length }));
}
