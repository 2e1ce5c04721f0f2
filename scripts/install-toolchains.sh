#!/usr/bin/env bash
# The Debian packages the tests need beyond Node: bare-metal RISC-V gcc + picolibc + qemu (the rv32 build of the
# generated C, run under qemu), arm-none-eabi gcc + newlib (SpiNNaker2's Cortex-M4F images) and python3 with torch, numpy
# and onnx (the BrainScaleS-2 emulator-in-the-loop training, examples/bss2-train). Installs whatever is
# missing with apt-get (as root, or through sudo); does nothing when all are there. `npm test` calls it.
set -euo pipefail
PACKAGES="gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc gcc-arm-none-eabi libnewlib-arm-none-eabi python3-torch python3-numpy python3-onnx"
missing=""
for p in $PACKAGES; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
[ -z "$missing" ] && exit 0
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=sudo; else
    echo "firmgen tests need the Debian packages:$missing (install them: sudo apt-get install$missing)" >&2
    exit 2
  fi
fi
echo "installing the Debian packages the tests need:$missing (about a minute)" >&2
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
