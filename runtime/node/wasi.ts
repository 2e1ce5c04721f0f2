/**
 * WASI behind a small interface, so node:wasi (or another host) can replace @wasmer/wasi (last released Dec 2022)
 * without touching the runner. One session runs one module once (a WASI object cannot be restarted).
 */
// Imported on first use: loading @wasmer/wasi alone takes ~45 ms, and most runs never need it (wasi-lite.ts).
type Wasmer = typeof import('@wasmer/wasi');
let wasmer: Promise<Wasmer> | undefined;

export interface WasiSession {
  /** Instantiates `module` with the WASI imports added to `imports`. */
  instantiate(module: WebAssembly.Module, imports: WebAssembly.Imports): WebAssembly.Instance;
  /** Runs the instance's `_start`; returns the exit code. A trap is thrown. */
  start(): number;
  /** Everything written to stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
}

export interface WasiHost {
  session(args: string[], env: Record<string, string>): Promise<WasiSession>;
}

let ready: Promise<void> | undefined;

/** @wasmer/wasi: init() once per process (~0.1 s, TOOLCHAIN.md), then one WASI object per run. */
export const wasmerHost: WasiHost = {
  async session(args, env) {
    wasmer ??= import('@wasmer/wasi');
    const { init, WASI } = await wasmer;
    ready ??= init();
    await ready;
    const wasi = new WASI({ args, env });
    let out = '';
    let err = '';
    // getStdoutString() empties the buffer on read (TOOLCHAIN.md): accumulate.
    const drain = (): void => {
      out += wasi.getStdoutString();
      err += wasi.getStderrString();
    };
    // wasmer refuses a module without any WASI import ("The WASI version could not be determined"): such a
    // firmware (no console, no abort path) is instantiated plainly and its _start called directly.
    let plain: WebAssembly.Instance | undefined;
    return {
      instantiate: (module, imports) => {
        if (WebAssembly.Module.imports(module).some((i) => i.module.startsWith('wasi'))) {
          return wasi.instantiate(module, imports);
        }
        plain = new WebAssembly.Instance(module, imports);
        return plain;
      },
      start: () => {
        if (plain) {
          (plain.exports._start as () => void)();
          return 0;
        }
        try {
          return wasi.start();
        } finally {
          drain();
        }
      },
      stdout: () => (drain(), out),
      stderr: () => (drain(), err),
    };
  },
};
