/**
 * Per-layer ISS/AS cycle ratios of one run of each, and how many lie within the bound (10 % either way):
 * the one counter that test/emulator/iss-vs-as and bench/iss-vs-as share, so their figures agree. A layer the AS
 * run does not list has ratio 0 (outside). `scale` multiplies the AS cycles (a one-hart ISS run doing the work of
 * that many AS cores).
 */
export const WITHIN = 1.1;

export interface LayerRatio { layer: number; name: string; asCycles: number; issCycles: number; ratio: number }

export function layerRatios(
  asLayers: readonly { layer: number; cycles: number }[],
  issLayers: readonly { layer: number; name: string; cycles: number }[],
  scale = 1,
): { layers: LayerRatio[]; within: number } {
  const asByLayer = new Map(asLayers.map((l) => [l.layer, l.cycles]));
  const layers = issLayers.map((l) => {
    const asCycles = asByLayer.get(l.layer) ?? 0;
    return { layer: l.layer, name: l.name, asCycles, issCycles: l.cycles, ratio: asCycles > 0 ? l.cycles / (asCycles * scale) : 0 };
  });
  return { layers, within: layers.filter((l) => l.ratio >= 1 / WITHIN && l.ratio <= WITHIN).length };
}
