/**
 * A one-line spinner with the current stage name on stderr, for commands that can take seconds (an uncached asc
 * build alone takes several). Only on a terminal: piped output, tests and CI see nothing. The generator's stages
 * are synchronous and block the event loop, so each stage change redraws at once; the animation advances whenever
 * the loop is free: during the asc build it is (the compiler runs in a worker thread, runtime/node/asc-thread.ts),
 * and during emulation between the run's awaits.
 */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const INTERVAL_MS = 80;

export interface Progress {
  /** A new stage begins (load, lower, plan, emit, asc build, emulate). */
  stage(name: string): void;
  /** Clears the line; call before printing results. */
  done(): void;
}

export interface ProgressStream {
  isTTY?: boolean;
  write(s: string): unknown;
}

const SILENT: Progress = { stage: () => undefined, done: () => undefined };

export function spinner(stream: ProgressStream = process.stderr): Progress {
  if (!stream.isTTY) return SILENT;
  let frame = 0;
  let name = '';
  let since = performance.now();
  let timer: ReturnType<typeof setInterval> | undefined;
  const draw = (): void => {
    const s = ((performance.now() - since) / 1000).toFixed(1);
    stream.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${name} ${s} s`);
  };
  return {
    stage(next: string): void {
      name = next;
      since = performance.now();
      if (!timer) {
        timer = setInterval(draw, INTERVAL_MS);
        timer.unref(); // never keeps the process alive
      }
      draw();
    },
    done(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
      if (name) stream.write('\r\x1b[K');
      name = '';
    },
  };
}
