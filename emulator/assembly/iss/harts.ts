/** Harts the core keeps state for (a fabric controller and a cluster of 8 fit with room). Its own module: the
 * devices need it, and core.ts imports the devices. */
export const MAX_HARTS: i32 = 16;
