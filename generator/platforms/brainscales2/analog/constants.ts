/**
 * Figures of the BrainScaleS-2 analog core shared by the generator, the reference model and (written again, equal)
 * the emulator's emulator/assembly/chips/brainscales2.ts. Sources beside each; ASSUMPTION marks what is not published.
 */

/** Synapse arrays on the chip (HARDWARE.md "BrainScaleS-2": two synapse arrays, one per hemisphere). */
export const ARRAYS = 2;
/** Signed inputs per array: 256 synapse rows, a signed weight on a row pair (hxtorch constants.h hardware_matrix_height). */
export const SIGNED_ROWS = 128;
/** Columns (neurons) per array: 256 (hxtorch constants.h hardware_matrix_width), 512 neurons on the chip. */
export const COLUMNS = 256;
/** Input activations are 5 bit, [0, 31] (hxtorch constants.h input_activation_max; SEMANTICS.md 3). */
export const INPUT_MAX = 31;
/** Weights are 6 bit plus sign, [-63, 63] (hxtorch constants.h synaptic_weight_max; SEMANTICS.md 3). */
export const WEIGHT_MAX = 63;
/** hxtorch constants.h defaults: gain 0.002, noise_std 2.0, wait_between_events 5 (FPGA cycles). */
export const DEFAULT_GAIN = 0.002;
export const DEFAULT_NOISE_STD = 2.0;
export const DEFAULT_WAIT_BETWEEN_EVENTS = 5;

/**
 * ASSUMPTION: fixed-pattern spread of an uncalibrated-residual chip (no public per-synapse figures): each synapse's
 * gain is 1 + 0.05 z, each neuron's gain 1 + 0.05 z and its offset 1.0 z output LSB (z standard normal, drawn from
 * the chip seed). Of the order of the temporal noise hxtorch's mock assumes (2 LSB), so that it matters and that
 * emulator-in-the-loop training has something to recover.
 */
export const SYNAPSE_GAIN_SPREAD = 0.05;
export const NEURON_GAIN_SPREAD = 0.05;
export const NEURON_OFFSET_STD = 1.0;

/** The draws' kinds: bits 17..18 of a fixed-pattern key, above array (bit 16), row (15..8) and column (7..0). */
export const KIND_SYNAPSE = 0;
export const KIND_NEURON_GAIN = 1;
export const KIND_NEURON_OFFSET = 2;
export const KIND_TEMPORAL = 3;
/** Mixed into a seed before its draws (the golden-ratio word), so seed 0 is an ordinary seed. */
export const SEED_SALT = 0x9e3779b9;
