/* The SpiNNaker2 PE as the ARM build of the firmware assumes it. HARDWARE.md gives the PE (an ARM Cortex-M4F, 128 KiB
   of SRAM for code and data, its own DMA controller, timers, interrupt controller, WFI) but no register interface for
   the DMA, the MAC array (MLA) or the communication controller. Every address and register layout below marked
   ASSUMPTION is this project's invention, chosen to be consistent with the emulator's model
   (emulator/assembly/chips/spinnaker2.ts, pes.ts, pe-dma.ts, mla.ts); a port to the real chip replaces this file and
   hal_s2_arm.c. The ARMv7-M system registers (SCB, NVIC, DWT) are architectural: ARMv7-M Architecture Reference
   Manual (DDI 0403), sections B3.2 (system control block), B3.4 (NVIC), C1.8 (DWT). */
#ifndef S2_ARM_H
#define S2_ARM_H
#include <stdint.h>

#define S2_REG(addr) (*(volatile uint32_t *)(addr))

/* ---- ARMv7-M architectural registers (not assumptions) ---- */
#define SCB_CPACR 0xE000ED88u   /* coprocessor access: CP10/CP11 full access enables the FPU (B3.2.20) */
#define SCB_DEMCR 0xE000EDFCu   /* debug exception and monitor control: bit 24 TRCENA enables the DWT (C1.6.5) */
#define DWT_CTRL 0xE0001000u    /* bit 0 CYCCNTENA starts the cycle counter (C1.8.7) */
#define DWT_CYCCNT 0xE0001004u  /* the 32-bit cycle counter: the time stamps of docs/spinnaker2.md */
#define NVIC_ISER0 0xE000E100u  /* interrupt set-enable, external interrupts 0..31 (B3.4.4) */

/* ---- SpiNNaker2 PE: ASSUMPTIONS ---- */

/* ASSUMPTION: the PE's 128 KiB SRAM is at address 0 of its own core (the Cortex-M4 boots from its vector table at 0,
   VTOR's reset value), the "local address 0" of docs/spinnaker2.md. The link scripts place the image there. */
#define S2_SRAM_BYTES (128u * 1024u)

/* ASSUMPTION: the PE's own number (0..151: 4 x QPE + PE in its QPE) in a read-only register. */
#define S2_PE_ID 0x40000000u

/* ASSUMPTION: the DRAM's chip address, as the emulator and the image (S2_DRAM_BASE there, 0x8000_0000: the
   Cortex-M4's external RAM region). */
#define S2_DRAM_BASE 0x80000000u

/* ASSUMPTION: the per-PE DMA controller (HARDWARE.md: "per-PE DMA controller") at 0x4001_0000 with one command queue:
   software writes a descriptor (SRAM address, DRAM address, bytes, row length and stride for a 2-D DRAM side) and
   a direction to CMD, which queues it; DONE counts the commands completed since reset, in queue order, so the
   n-th command issued (its ticket, counted from 0) is done when DONE > n. FREE is the number of queue entries free. */
#define S2_DMA 0x40010000u
#define DMA_SRAM_ADDR (S2_DMA + 0x00u)
#define DMA_DRAM_ADDR (S2_DMA + 0x04u)
#define DMA_BYTES_REG (S2_DMA + 0x08u)
#define DMA_ROW_LEN (S2_DMA + 0x0Cu)
#define DMA_ROW_STRIDE_REG (S2_DMA + 0x10u)
#define DMA_CMD (S2_DMA + 0x14u)        /* write 1: DRAM to SRAM, 2: SRAM to DRAM */
#define DMA_DONE (S2_DMA + 0x18u)
#define DMA_FREE (S2_DMA + 0x1Cu)
#define DMA_CMD_IN 1u
#define DMA_CMD_OUT 2u

/* ASSUMPTION: the MLA (16 x 4 int8 MACs, HARDWARE.md "MLA") at 0x4002_0000, programmed with the operands of
   s2_hal.h's hal_mla_start (addresses in the PE's SRAM, element strides in bytes) and started by writing 1 to START;
   BUSY reads 1 until the int32 results are in SRAM. */
#define S2_MLA 0x40020000u
#define MLA_A (S2_MLA + 0x00u)
#define MLA_B (S2_MLA + 0x04u)
#define MLA_OUT (S2_MLA + 0x08u)
#define MLA_M (S2_MLA + 0x0Cu)
#define MLA_N (S2_MLA + 0x10u)
#define MLA_K (S2_MLA + 0x14u)
#define MLA_A_ROW (S2_MLA + 0x18u)
#define MLA_A_K (S2_MLA + 0x1Cu)
#define MLA_B_K (S2_MLA + 0x20u)
#define MLA_B_COL (S2_MLA + 0x24u)
#define MLA_OUT_ROW (S2_MLA + 0x28u)
#define MLA_FLAGS (S2_MLA + 0x2Cu)      /* bit 0: A signed, bit 1: B signed */
#define MLA_START (S2_MLA + 0x30u)
#define MLA_BUSY (S2_MLA + 0x34u)

/* ASSUMPTION: the communication controller (NoC packets, HARDWARE.md "NoC") at 0x4003_0000. Sending: write the
   destination PE, the key and the payload, then 1 to SEND. Receiving raises external interrupt S2_CC_IRQ; the
   handler reads RX_KEY, RX_PAYLOAD and RX_SOURCE and writes 1 to RX_POP. */
#define S2_CC 0x40030000u
#define CC_TX_DEST (S2_CC + 0x00u)
#define CC_TX_KEY (S2_CC + 0x04u)
#define CC_TX_PAYLOAD (S2_CC + 0x08u)
#define CC_TX_SEND (S2_CC + 0x0Cu)
#define CC_RX_COUNT (S2_CC + 0x10u)
#define CC_RX_KEY (S2_CC + 0x14u)
#define CC_RX_PAYLOAD (S2_CC + 0x18u)
#define CC_RX_SOURCE (S2_CC + 0x1Cu)
#define CC_RX_POP (S2_CC + 0x20u)
#define S2_CC_IRQ 0u

/* This project's packet convention (not the chip's): a completion packet carries this key; a wake-up carries the
   scheduler's key (scheduler << 16 | j, below 0x8000_0000 for every PE number). */
#define S2_KEY_DONE 0xFFFFFFFFu

#endif
