/**
 * The RV32IMC part of the core against an independent implementation: C programs built with gcc and picolibc
 * (semihosting) run on the core and on qemu-system-riscv32; console output and exit code must be equal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileC, loadElf, machine, qemu, runToStop, STOP } from './iss-harness.js';

const PROGRAMS: Record<string, string> = {
  dot: `
#include <stdio.h>
#include <stdint.h>
static int8_t a[301], b[301];
int main(void) {
  uint32_t s = 7;
  for (int i = 0; i < 301; i++) { s = s * 1103515245u + 12345u; a[i] = (int8_t)(s >> 16); b[i] = (int8_t)(s >> 8); }
  a[0] = -128; b[0] = -128; a[1] = 127; b[1] = -128;
  int32_t dot = 0;
  for (int i = 0; i < 301; i++) dot += a[i] * b[i];
  printf("dot %ld\\n", (long)dot);
  return (int)(dot & 0x7f);
}`,
  matmul: `
#include <stdio.h>
#include <stdint.h>
#define N 12
static int8_t A[N][N], B[N][N];
static int32_t C[N][N];
int main(void) {
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) { A[i][j] = (int8_t)(i * 37 - j * 11); B[i][j] = (int8_t)(j * 53 + i * 7 - 100); }
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {
    int32_t s = 0;
    for (int k = 0; k < N; k++) s += A[i][k] * B[k][j];
    C[i][j] = s;
  }
  uint32_t h = 0;
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) h = h * 31u + (uint32_t)C[i][j];
  printf("C[0][0]=%ld C[11][5]=%ld hash=%08lx\\n", (long)C[0][0], (long)C[11][5], (unsigned long)h);
  return (int)(h % 200);
}`,
  division: `
#include <stdio.h>
#include <stdint.h>
#include <limits.h>
static volatile int32_t vals[] = { 0, 1, -1, 7, -7, 1000, -1000, 65536, INT_MIN, INT_MAX, 3, -3, 12345678 };
int main(void) {
  uint32_t h = 0;
  int n = sizeof(vals) / sizeof(vals[0]);
  for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) {
    int32_t x = vals[i], y = vals[j];
    if (y == 0 || (x == INT_MIN && y == -1)) continue;
    h = h * 33u + (uint32_t)(x / y); h = h * 33u + (uint32_t)(x % y);
    h = h * 33u + (uint32_t)x / (uint32_t)y; h = h * 33u + (uint32_t)x % (uint32_t)y;
  }
  printf("div hash %08lx\\n", (unsigned long)h);
  return (int)(h & 0x3f);
}`,
  mixed: `
#include <stdio.h>
#include <string.h>
#include <stdint.h>
struct item { int key; char name[12]; };
static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static const char *kind(int v) {
  switch (v & 7) { case 0: return "zero"; case 1: return "one"; case 2: return "two"; case 3: return "three";
    case 4: return "four"; case 5: return "five"; case 6: return "six"; default: return "seven"; }
}
int main(void) {
  struct item items[6];
  for (int i = 0; i < 6; i++) { items[i].key = (i * 7919) % 13 - 6; snprintf(items[i].name, sizeof items[i].name, "it%d", i); }
  for (int i = 0; i < 6; i++) for (int j = 0; j + 1 < 6 - i; j++)
    if (items[j].key > items[j + 1].key) { struct item t = items[j]; items[j] = items[j + 1]; items[j + 1] = t; }
  for (int i = 0; i < 6; i++) printf("%s:%d:%s ", items[i].name, items[i].key, kind(items[i].key));
  int64_t p = (int64_t)fib(20) * -987654321LL;
  printf("\\nfib %d p %lld mulh %08lx\\n", fib(20), (long long)p, (unsigned long)(((uint64_t)0xdeadbeefu * 0xcafebabeu) >> 32));
  return 5;
}`,
};

for (const [name, source] of Object.entries(PROGRAMS)) {
  for (const opt of ['-O2', '-Os']) {
    test(`${name} ${opt}: same output and exit code as qemu`, async () => {
      const c = compileC(source, opt);
      const m = await machine();
      loadElf(m, c.elf);
      const r = runToStop(m);
      assert.is(r.stop, STOP.exit, r.fault);
      const q = qemu(c.path);
      assert.ok(q.out.length > 0, 'qemu printed something');
      assert.is(r.out, q.out);
      assert.is(r.exit, q.exit);
      assert.ok(r.cycles >= r.instructions);
    });
  }
}

test.run();
