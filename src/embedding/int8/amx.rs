//! The int8 products on AMX, the tile unit of Intel's Xeons since Sapphire Rapids: 32 rows by
//! 32 outputs of sums in four tiles, each instruction 16 rows by 16 outputs by 64 inputs, eight
//! times a VNNI instruction's work. The sums are the VNNI kernel's exact integers, stored by
//! its code, so the outputs are the same to the bit. Stable Rust has no AMX intrinsics yet:
//! each instruction is one line of inline assembly.

use std::arch::asm;
use std::arch::x86_64::*;
use std::sync::OnceLock;

use super::packed::{LANES, Packed, Scale};
use super::vnni;

/// Rows of inputs the kernel takes at a time: the caller pads the bytes with zero rows to a
/// multiple of it.
pub const ROWS: usize = 2 * TILE_ROWS;
/// Inputs one tile row holds: 64 bytes.
const TILE_INPUTS: usize = 64;
/// Rows a tile holds, of inputs or of sums.
const TILE_ROWS: usize = 16;
/// Outputs the kernel takes at a time: two blocks.
const OUTPUTS: usize = 2 * LANES;

/// Whether this CPU has AMX's int8 products (and the AVX-512 the outputs are stored with), and
/// Linux lets this process use the tiles: their 8 KiB of state a thread is saved on a context
/// switch only for a process that asked (Linux's Documentation/arch/x86/xstate.rst).
pub fn available() -> bool {
    static USABLE: OnceLock<bool> = OnceLock::new();
    *USABLE.get_or_init(|| vnni::available() && has_amx_int8() && tiles_permitted())
}

/// CPUID leaf 7: EDX bit 24 is AMX-TILE, bit 25 AMX-INT8 (Intel SDM vol. 2, CPUID).
fn has_amx_int8() -> bool {
    let edx = __cpuid_count(7, 0).edx;
    edx & (1 << 24) != 0 && edx & (1 << 25) != 0
}

/// Asks Linux for the tiles' state (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`),
/// once for every thread of the process: without it the first tile instruction is a SIGILL.
fn tiles_permitted() -> bool {
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: the call only sets the process's permission; it reads and writes no memory.
    unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        ) == 0
    }
}

/// Whether the kernel takes a layer of this shape: inputs in whole tile rows, outputs in
/// pairs of blocks. BERT's 384 and 1,536 are.
pub fn fits(layer: &Packed) -> bool {
    layer.inputs.is_multiple_of(TILE_INPUTS) && layer.outputs.is_multiple_of(OUTPUTS)
}

/// The tiles' shapes, as `ldtilecfg` reads them (Intel SDM vol. 1, 18.2): palette 1, each of
/// the eight tiles 16 rows of 64 bytes. Tiles 0–3 are the sums, 4–5 the inputs, 6–7 the
/// weights.
#[repr(C, align(64))]
struct Config {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    bytes_per_row: [u16; 16],
    rows: [u8; 16],
}

const CONFIG: Config = {
    let mut config = Config {
        palette: 1,
        start_row: 0,
        reserved: [0; 14],
        bytes_per_row: [0; 16],
        rows: [0; 16],
    };
    let mut tile = 0;
    while tile < 8 {
        config.bytes_per_row[tile] = TILE_INPUTS as u16;
        config.rows[tile] = TILE_ROWS as u8;
        tile += 1;
    }
    config
};

/// What `packed::product` computes. `quantized` holds the rows of `row_scales` then zero rows
/// up to a multiple of [`ROWS`]; the layer [`fits`].
///
/// # Safety
/// [`available`] must be true.
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn product(layer: &Packed, quantized: &[u8], row_scales: &[Scale], out: &mut [f32]) {
    let (inputs, rows) = (layer.inputs, row_scales.len());
    let padded = rows.next_multiple_of(ROWS);
    assert!(fits(layer) && quantized.len() >= padded * inputs && out.len() >= rows * layer.outputs);
    let block_len = LANES * inputs;
    // One block's weights for 64 inputs: 16 groups of four inputs by 16 outputs, 64 bytes a
    // group, as a tile of weights wants them (16 rows of four inputs for 16 outputs).
    let step = TILE_ROWS * TILE_INPUTS;
    let mut sums = [[[0_i32; LANES]; TILE_ROWS]; 4];
    // SAFETY (every block below): `CONFIG` is a valid palette-1 configuration; each load reads
    // 16 rows of 64 bytes, within the 32 rows of `quantized` sliced below (padded, checked
    // above) or within the pair of blocks' weights sliced below (`fits`: the blocks come in
    // pairs, `inputs` a multiple of 64); each store writes 16 rows of 64 bytes into `sums`.
    unsafe { asm!("ldtilecfg [{}]", in(reg) &CONFIG, options(nostack, readonly)) };
    for block in (0..layer.outputs / LANES).step_by(2) {
        let weights = layer.weights[block * block_len..(block + 2) * block_len].as_ptr();
        for row in (0..padded).step_by(ROWS) {
            let bytes = quantized[row * inputs..(row + ROWS) * inputs].as_ptr();
            unsafe {
                asm!(
                    "tilezero tmm0",
                    "tilezero tmm1",
                    "tilezero tmm2",
                    "tilezero tmm3",
                    options(nostack, nomem)
                );
                for k in 0..inputs / TILE_INPUTS {
                    let (a, b) = (bytes.add(k * TILE_INPUTS), weights.add(k * step));
                    asm!(
                        "tileloadd tmm4, [{a0} + {a_stride}*1]",
                        "tileloadd tmm5, [{a1} + {a_stride}*1]",
                        "tileloadd tmm6, [{b0} + {b_stride}*1]",
                        "tileloadd tmm7, [{b1} + {b_stride}*1]",
                        "tdpbusd tmm0, tmm4, tmm6",
                        "tdpbusd tmm1, tmm4, tmm7",
                        "tdpbusd tmm2, tmm5, tmm6",
                        "tdpbusd tmm3, tmm5, tmm7",
                        a0 = in(reg) a,
                        a1 = in(reg) a.add(TILE_ROWS * inputs),
                        a_stride = in(reg) inputs,
                        b0 = in(reg) b,
                        b1 = in(reg) b.add(block_len),
                        b_stride = in(reg) TILE_INPUTS,
                        options(nostack, readonly),
                    );
                }
                asm!(
                    "tilestored [{s0} + {stride}*1], tmm0",
                    "tilestored [{s1} + {stride}*1], tmm1",
                    "tilestored [{s2} + {stride}*1], tmm2",
                    "tilestored [{s3} + {stride}*1], tmm3",
                    s0 = in(reg) sums[0].as_mut_ptr(),
                    s1 = in(reg) sums[1].as_mut_ptr(),
                    s2 = in(reg) sums[2].as_mut_ptr(),
                    s3 = in(reg) sums[3].as_mut_ptr(),
                    stride = in(reg) TILE_INPUTS,
                    options(nostack),
                );
            }
            for r in 0..ROWS.min(rows.saturating_sub(row)) {
                for c in 0..2 {
                    let tile = &sums[r / TILE_ROWS * 2 + c][r % TILE_ROWS];
                    let at = (row + r) * layer.outputs + (block + c) * LANES;
                    // SAFETY: the CPU has AVX-512 F (`available`); `out` holds the row.
                    unsafe {
                        let tile = _mm512_loadu_si512(tile.as_ptr().cast());
                        let scale = row_scales[row + r];
                        vnni::store(layer, tile, scale, block + c, &mut out[at..at + LANES]);
                    }
                }
            }
        }
    }
    // SAFETY: returns the tiles to their initial state, which a context switch need not save.
    unsafe { asm!("tilerelease", options(nostack, nomem)) };
}
