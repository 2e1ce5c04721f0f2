/**
 * The two WASI calls generated firmware makes (the AssemblyScript WASI shim's console and abort path: fd_write and
 * proc_exit), served in-process. Importing and initialising @wasmer/wasi costs ~110 ms per process (measured here:
 * import 45 ms, init() 69 ms), more than a whole model's emulation, so the runner uses this host whenever a module
 * needs nothing else and keeps wasmer for any other module.
 */
import type { WasiHost, WasiSession } from './wasi.js';

const MODULE = 'wasi_snapshot_preview1';
const SUPPORTED = new Set(['fd_write', 'proc_exit']);
const ERRNO_SUCCESS = 0;
const ERRNO_BADF = 8;

/** True when every WASI import of `module` is one this host serves. */
export function liteSupports(module: WebAssembly.Module): boolean {
  return WebAssembly.Module.imports(module).every((i) => !i.module.startsWith('wasi') || (i.module === MODULE && SUPPORTED.has(i.name)));
}

class ProcExit {
  constructor(readonly code: number) {}
}

export const liteHost: WasiHost = {
  async session(): Promise<WasiSession> {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let memory: WebAssembly.Memory | undefined;
    let instance: WebAssembly.Instance | undefined;
    const wasi = {
      fd_write(fd: number, iovs: number, count: number, written: number): number {
        const sink = fd === 1 ? out : fd === 2 ? err : undefined;
        if (!sink || !memory) return ERRNO_BADF;
        const view = new DataView(memory.buffer);
        let total = 0;
        for (let i = 0; i < count; i++) {
          const ptr = view.getUint32(iovs + i * 8, true);
          const len = view.getUint32(iovs + i * 8 + 4, true);
          sink.push(Buffer.from(new Uint8Array(memory.buffer, ptr, len)));
          total += len;
        }
        view.setUint32(written, total, true);
        return ERRNO_SUCCESS;
      },
      proc_exit(code: number): never {
        throw new ProcExit(code);
      },
    };
    return {
      instantiate(module, imports) {
        if (!liteSupports(module)) throw new Error('the module needs WASI calls beyond fd_write and proc_exit');
        const env = imports.env as Record<string, unknown> | undefined;
        memory = env?.memory instanceof WebAssembly.Memory ? env.memory : undefined;
        instance = new WebAssembly.Instance(module, { ...imports, [MODULE]: wasi });
        memory ??= instance.exports.memory as WebAssembly.Memory | undefined;
        return instance;
      },
      start() {
        try {
          (instance!.exports._start as () => void)();
          return 0;
        } catch (e) {
          if (e instanceof ProcExit) return e.code;
          throw e;
        }
      },
      stdout: () => Buffer.concat(out).toString('utf8'),
      stderr: () => Buffer.concat(err).toString('utf8'),
    };
  },
};
