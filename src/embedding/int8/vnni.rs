//! The int8 products on AVX-512 VNNI: eight rows by thirty-two outputs at a time (the last
//! rows together), their sixteen registers of 32-bit sums kept while the inputs pass, four
//! inputs an instruction.

use std::arch::x86_64::*;

use super::packed::{GROUP, LANES, Packed, Scale};

pub fn available() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vnni")
}

/// What `packed::quantize` computes, sixteen values an instruction. The inputs are a multiple
/// of 16 (`Packed::quantize`).
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub unsafe fn quantize(xs: &[f32], inputs: usize, out: &mut [u8], scales: &mut [Scale]) {
    for ((row, bytes), scale) in (xs.chunks_exact(inputs))
        .zip(out.chunks_exact_mut(inputs))
        .zip(scales.iter_mut())
    {
        let (mut min, mut max) = (_mm512_setzero_ps(), _mm512_setzero_ps());
        for chunk in row.chunks_exact(LANES) {
            // SAFETY: `chunk` holds 16 values.
            let values = unsafe { _mm512_loadu_ps(chunk.as_ptr()) };
            (min, max) = (_mm512_min_ps(min, values), _mm512_max_ps(max, values));
        }
        *scale = Scale::of(_mm512_reduce_min_ps(min), _mm512_reduce_max_ps(max));
        let inverse = _mm512_set1_ps(1.0 / scale.step);
        let (zero, offset) = (_mm512_setzero_si512(), _mm512_set1_epi32(scale.zero));
        for (chunk, bytes) in row.chunks_exact(LANES).zip(bytes.chunks_exact_mut(LANES)) {
            // SAFETY: `chunk` holds 16 values, `bytes` 16 bytes.
            unsafe {
                // Rounds to nearest, ties to even: the rounding mode Rust leaves set.
                let rounded =
                    _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(chunk.as_ptr()), inverse));
                let shifted = _mm512_max_epi32(_mm512_add_epi32(rounded, offset), zero);
                let unsigned = _mm512_cvtusepi32_epi8(shifted);
                _mm_storeu_si128(bytes.as_mut_ptr().cast(), unsigned);
            }
        }
    }
}

/// What `packed::product` computes.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VNNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
pub unsafe fn product(layer: &Packed, quantized: &[u8], row_scales: &[Scale], out: &mut [f32]) {
    let (rows, blocks) = (row_scales.len(), layer.outputs / LANES);
    let mut block = 0;
    while block < blocks {
        let pair = block + 2 <= blocks;
        let mut row = 0;
        while row < rows {
            let at = Tile { row, block };
            // The rows left after the last eight go in one tile of their own: one at a time, a
            // row's two sums would each wait on `vpdpbusd`'s latency.
            let height = (rows - row).min(8);
            // SAFETY: the caller's CPU has the features these are compiled for.
            unsafe {
                match height {
                    8 => tiles::<8>(layer, quantized, row_scales, out, at, pair),
                    7 => tiles::<7>(layer, quantized, row_scales, out, at, pair),
                    6 => tiles::<6>(layer, quantized, row_scales, out, at, pair),
                    5 => tiles::<5>(layer, quantized, row_scales, out, at, pair),
                    4 => tiles::<4>(layer, quantized, row_scales, out, at, pair),
                    3 => tiles::<3>(layer, quantized, row_scales, out, at, pair),
                    2 => tiles::<2>(layer, quantized, row_scales, out, at, pair),
                    _ => tiles::<1>(layer, quantized, row_scales, out, at, pair),
                }
            }
            row += height;
        }
        block += if pair { 2 } else { 1 };
    }
}

/// `R` rows by a pair of blocks, or by one.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn tiles<const R: usize>(
    layer: &Packed,
    quantized: &[u8],
    row_scales: &[Scale],
    out: &mut [f32],
    at: Tile,
    pair: bool,
) {
    // SAFETY: the caller's CPU has the features these are compiled for.
    unsafe {
        if pair {
            tile::<R, 2>(layer, quantized, row_scales, out, at)
        } else {
            tile::<R, 1>(layer, quantized, row_scales, out, at)
        }
    }
}

/// Where a tile starts: its first row, and its first block of 16 outputs.
#[derive(Clone, Copy)]
struct Tile {
    row: usize,
    block: usize,
}

/// `R` rows by `C` blocks of 16 outputs.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn tile<const R: usize, const C: usize>(
    layer: &Packed,
    quantized: &[u8],
    row_scales: &[Scale],
    out: &mut [f32],
    Tile { row, block }: Tile,
) {
    let (inputs, block_len) = (layer.inputs, LANES * layer.inputs);
    let weights = &layer.weights[block * block_len..(block + C) * block_len];
    let bytes = &quantized[row * inputs..(row + R) * inputs];
    let (weights, bytes) = (weights.as_ptr(), bytes.as_ptr());
    let mut sums = [[_mm512_setzero_si512(); C]; R];
    for group in 0..inputs / GROUP {
        // SAFETY: each block holds `inputs / 4` groups of 64 bytes, each row `inputs` bytes;
        // the slices above checked that the tile's blocks and rows are there.
        unsafe {
            let w: [__m512i; C] = std::array::from_fn(|c| {
                _mm512_loadu_si512(weights.add(c * block_len + group * LANES * GROUP).cast())
            });
            for (r, sums) in sums.iter_mut().enumerate() {
                let four = bytes
                    .add(r * inputs + group * GROUP)
                    .cast::<i32>()
                    .read_unaligned();
                let x = _mm512_set1_epi32(four);
                for (sum, &w) in sums.iter_mut().zip(&w) {
                    *sum = _mm512_dpbusd_epi32(*sum, x, w);
                }
            }
        }
    }
    for (r, sums) in sums.iter().enumerate() {
        for (c, &sum) in sums.iter().enumerate() {
            let at = (row + r) * layer.outputs + (block + c) * LANES;
            // SAFETY: the caller's CPU has the features these are compiled for.
            unsafe {
                store(
                    layer,
                    sum,
                    row_scales[row + r],
                    block + c,
                    &mut out[at..at + LANES],
                )
            };
        }
    }
}

/// The block's sixteen outputs of one row from their integer sums, as `packed::dequantize`
/// computes each: the AMX kernel stores its sums the same way.
///
/// # Safety
/// The CPU must have AVX-512 F.
#[target_feature(enable = "avx512f")]
pub unsafe fn store(layer: &Packed, sums: __m512i, row: Scale, block: usize, out: &mut [f32]) {
    let outputs = block * LANES..(block + 1) * LANES;
    let (row_scale, offset) = (_mm512_set1_ps(row.step), _mm512_set1_epi32(row.zero));
    // SAFETY: each slice holds the 16 values of the block's outputs.
    unsafe {
        let weight_sums = _mm512_loadu_si512(layer.sums[outputs.clone()].as_ptr().cast());
        let exact = _mm512_sub_epi32(sums, _mm512_mullo_epi32(offset, weight_sums));
        let scales = _mm512_loadu_ps(layer.scales[outputs.clone()].as_ptr());
        let bias = _mm512_loadu_ps(layer.bias[outputs].as_ptr());
        let scaled = _mm512_mul_ps(_mm512_cvtepi32_ps(exact), _mm512_mul_ps(row_scale, scales));
        _mm512_storeu_ps(out[..LANES].as_mut_ptr(), _mm512_add_ps(scaled, bias));
    }
}
