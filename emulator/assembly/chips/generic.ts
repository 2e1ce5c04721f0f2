// Generic chip: one core, one flat RAM at chip address 0.

import { addRegion } from "../regions";
import { MiB } from "../layout";

export function genericRegions(): void {
  addRegion("RAM", 0x0, 16 * MiB);
}
