//! The encoder's functions of each value and of each row, each one loop the compiler
//! vectorizes: no call per value to libm's `erff` or `expf`, which took about a fifth of the
//! model's time on a 500-character text through candle's general ops (perf, 2026-12-04). Where
//! the CPU has AVX-512 the same loops are compiled for it, sixteen values an instruction: built
//! for the baseline x86-64 they ran four at a time, and the softmax's maximum and sum one at a
//! time (a float sum is not reordered unless written in lanes), which took a third of a Japanese
//! summary's time with the multilingual model (perf, 2026-12-06). Every op runs on the calling
//! thread: candle-nn's layer norm handed each call to rayon's pool, whose thread then spun
//! waiting for the next, a twentieth of a search's CPU (perf, 2026-12-06).

use candle_core::{CpuStorage, InplaceOp1, Layout, Result, Tensor};
use candle_nn::VarBuilder;

/// Values a reduction keeps apart, one per lane of a 512-bit register.
const LANES: usize = 16;

/// The values of a contiguous f32 tensor, as a custom op of the encoder's gets them, or an
/// error naming the op.
pub(super) fn values<'a>(op: &str, storage: &'a CpuStorage, layout: &Layout) -> Result<&'a [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (CpuStorage::F32(values), Some((start, end))) => Ok(&values[start..end]),
        _ => candle_core::bail!("{op} takes contiguous f32 values"),
    }
}

/// As [`values`], to be changed in place: the activations are fresh outputs of a product,
/// so each op rewrites them rather than allocating and filling as many again (for the
/// attention's weights, megabytes a layer).
fn values_mut<'a>(op: &str, storage: &'a mut CpuStorage, layout: &Layout) -> Result<&'a mut [f32]> {
    match (storage, layout.contiguous_offsets()) {
        (CpuStorage::F32(values), Some((start, end))) => Ok(&mut values[start..end]),
        _ => candle_core::bail!("{op} takes contiguous f32 values"),
    }
}

/// Runs `body` compiled for AVX-512 where this CPU has it, for the baseline otherwise: the
/// same code, so the same results on every CPU but for the order of a sum.
macro_rules! fastest {
    ($name:ident, $body:ident, ($($arg:ident: $ty:ty),*) -> $out:ty) => {
        fn $name($($arg: $ty),*) -> $out {
            #[cfg(target_arch = "x86_64")]
            if is_x86_feature_detected!("avx512f") {
                #[target_feature(enable = "avx512f")]
                unsafe fn wide($($arg: $ty),*) -> $out {
                    $body($($arg),*)
                }
                // SAFETY: the CPU has AVX-512 F (checked above).
                return unsafe { wide($($arg),*) };
            }
            $body($($arg),*)
        }
    };
}

/// The softmax of each row (the last dimension): the attention's weights.
pub struct Softmax;

impl InplaceOp1 for Softmax {
    fn name(&self) -> &'static str {
        "softmax-last-dim"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        let Some(&width) = layout.shape().dims().last().filter(|&&width| width > 0) else {
            candle_core::bail!("softmax takes rows of at least one value");
        };
        softmax_rows(values_mut(self.name(), storage, layout)?, width);
        Ok(())
    }
}

fastest!(softmax_rows, softmax_rows_in_lanes, (rows: &mut [f32], width: usize) -> ());

#[inline(always)]
fn softmax_rows_in_lanes(rows: &mut [f32], width: usize) {
    for row in rows.chunks_exact_mut(width) {
        let max = in_lanes(row, f32::NEG_INFINITY, |x| x, f32::max);
        // Each value's exponential, and their sum, in one pass.
        let mut sums = [0.0; LANES];
        let mut chunks = row.chunks_exact_mut(LANES);
        for chunk in &mut chunks {
            for (x, sum) in chunk.iter_mut().zip(&mut sums) {
                *x = exp(*x - max);
                *sum += *x;
            }
        }
        let mut sum = sums.into_iter().sum::<f32>();
        // The rest's exponentials in lanes too, padded with zeros' logarithm: one at a time
        // they took longer than the rest of a question's row of 55 (perf, 2026-12-07). Added
        // to the sum in order, as before.
        let rest = chunks.into_remainder();
        let mut lanes = [f32::NEG_INFINITY; LANES];
        lanes[..rest.len()].copy_from_slice(rest);
        lanes.iter_mut().for_each(|x| *x = exp(*x - max));
        for (x, e) in rest.iter_mut().zip(lanes) {
            *x = e;
            sum += e;
        }
        let inverse = 1.0 / sum;
        row.iter_mut().for_each(|x| *x *= inverse);
    }
}

/// Layer normalization of each row (the last dimension): its mean taken away, divided by its
/// standard deviation, then scaled and shifted by the layer's weights.
pub struct LayerNorm {
    weight: Vec<f32>,
    bias: Vec<f32>,
    eps: f32,
}

impl LayerNorm {
    /// The weights of a normalization of rows of `width`, as `vb` holds them (`weight`, `bias`).
    pub fn load(width: usize, eps: f64, vb: VarBuilder) -> Result<Self> {
        Ok(Self {
            weight: vb.get(width, "weight")?.to_vec1()?,
            bias: vb.get(width, "bias")?.to_vec1()?,
            eps: eps as f32,
        })
    }

    /// `rows` normalized in place, for a fresh tensor (a sum) that nothing else shares.
    pub fn forward(&self, rows: Tensor) -> Result<Tensor> {
        rows.inplace_op1(self)?;
        Ok(rows)
    }
}

impl InplaceOp1 for LayerNorm {
    fn name(&self) -> &'static str {
        "layer-norm"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        if layout.shape().dims().last() != Some(&self.weight.len()) {
            candle_core::bail!("layer norm takes rows of {} values", self.weight.len());
        }
        let rows = values_mut(self.name(), storage, layout)?;
        norm_rows(rows, &self.weight, &self.bias, self.eps);
        Ok(())
    }
}

fastest!(norm_rows, norm_rows_in_lanes, (rows: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) -> ());

#[inline(always)]
fn norm_rows_in_lanes(rows: &mut [f32], weight: &[f32], bias: &[f32], eps: f32) {
    let width = weight.len() as f32;
    for row in rows.chunks_exact_mut(weight.len()) {
        let mean = in_lanes(row, 0.0, |x| x, std::ops::Add::add) / width;
        // The variance from the values less their mean, not from the mean of their squares,
        // which loses digits when the mean is large beside the spread.
        let squares = in_lanes(row, 0.0, |x| (x - mean) * (x - mean), std::ops::Add::add);
        let inverse = 1.0 / (squares / width + eps).sqrt();
        for ((x, w), b) in row.iter_mut().zip(weight).zip(bias) {
            *x = (*x - mean) * inverse * w + b;
        }
    }
}

/// `f` over `term` of each of `values`, from `start`: in sixteen lanes, then the lanes, so
/// that the compiler can keep the reduction in one register.
#[inline(always)]
fn in_lanes(
    values: &[f32],
    start: f32,
    term: impl Fn(f32) -> f32,
    f: impl Fn(f32, f32) -> f32,
) -> f32 {
    let mut lanes = [start; LANES];
    let chunks = values.chunks_exact(LANES);
    let rest = chunks.remainder();
    for chunk in chunks {
        lanes
            .iter_mut()
            .zip(chunk)
            .for_each(|(lane, &x)| *lane = f(*lane, term(x)));
    }
    let lanes = lanes.into_iter().fold(start, &f);
    rest.iter().fold(lanes, |acc, &x| f(acc, term(x)))
}

/// e^x for x ≤ 0 (a softmax's inputs less their maximum), to within a few units in the last
/// place: 2^n · e^r with r = x − n ln 2 in ±ln 2 / 2, and e^r by Cephes' `expf` polynomial.
/// Below −87, where e^x nears the smallest normal f32, it is 0.
#[inline(always)]
fn exp(x: f32) -> f32 {
    const P: [f32; 6] = [
        1.987_569_1e-4,
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ];
    // Adding 1.5 · 2^23 rounds to an integer, which is then in the float's low bits.
    const ROUND: f32 = 12_582_912.0;
    // ln 2 in two parts, the first exact in few bits, so that n · LN2_HIGH is exact.
    const LN2_HIGH: f32 = 0.693_359_4;
    const LN2_LOW: f32 = -2.121_944_4e-4;
    let below = x < -87.0;
    let x = x.max(-87.0);
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = x - n * LN2_HIGH - n * LN2_LOW;
    let e_r = P.iter().fold(0.0, |acc, &c| acc * r + c) * r * r + r + 1.0;
    let n = shifted.to_bits().wrapping_sub(ROUND.to_bits()) as i32;
    let two_to_n = f32::from_bits(((n + 127) << 23) as u32);
    if below { 0.0 } else { e_r * two_to_n }
}

/// The exact GELU, `x Φ(x)`, of every value: one loop the compiler vectorizes.
pub struct Gelu;

impl InplaceOp1 for Gelu {
    fn name(&self) -> &'static str {
        "gelu-erf"
    }

    fn cpu_fwd(&self, storage: &mut CpuStorage, layout: &Layout) -> Result<()> {
        gelu_all(values_mut(self.name(), storage, layout)?);
        Ok(())
    }
}

fastest!(gelu_all, gelu_each, (values: &mut [f32]) -> ());

#[inline(always)]
fn gelu_each(values: &mut [f32]) {
    values.iter_mut().for_each(|x| *x = gelu(*x));
}

#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf to within 1e-7 by a rational function of x (a minimax fit on [-4, 4], beyond which erf
/// is ±1 in f32): Eigen's `generic_fast_erf_float`, which XLA also uses. No branch, no call.
#[inline(always)]
fn erf(x: f32) -> f32 {
    const P: [f32; 7] = [
        -2.726_142_3e-10,
        2.770_681_4e-8,
        -2.101_024e-6,
        -5.692_506_4e-5,
        -7.349_906_3e-4,
        -2.954_600_2e-3,
        -1.609_603_3e-2,
    ];
    const Q: [f32; 5] = [
        -1.456_607_2e-5,
        -2.133_740_6e-4,
        -1.682_827e-3,
        -7.373_329e-3,
        -1.426_474e-2,
    ];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = P.iter().fold(0.0, |acc, &c| acc * x2 + c) * x;
    let q = Q.iter().fold(0.0, |acc, &c| acc * x2 + c);
    p / q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_a_few_units_in_the_last_place() {
        for i in 0..=870_000 {
            let x = -(i as f32) / 10_000.0;
            let (ours, exact) = (f64::from(exp(x)), f64::from(x).exp());
            assert!(
                (ours - exact).abs() <= 4.0 * f64::EPSILON.max(exact * 1.2e-7),
                "exp({x}) = {ours}, not {exact}"
            );
        }
        assert_eq!(exp(-100.0), 0.0);
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
    }

    /// The largest difference between two tensors' values.
    fn largest_difference(ours: Tensor, theirs: Tensor) -> f32 {
        (ours - theirs)
            .and_then(|d| d.abs())
            .and_then(|d| d.max_all())
            .and_then(|d| d.to_scalar())
            .unwrap()
    }

    #[test]
    fn softmax_gives_candles_weights() {
        use candle_core::{Device, Tensor};
        // Rows of two lanes' width and a rest, and rows shorter than the lanes.
        let rows = |count, width| {
            let values: Vec<f32> = (0..count * width)
                .map(|i| ((i * 37 % 23) as f32 - 11.0) * 1.7)
                .collect();
            Tensor::from_vec(values, (count, width), &Device::Cpu).unwrap()
        };
        for scores in [rows(3, 2 * LANES + 5), rows(4, 7)] {
            let candles = candle_nn::ops::softmax_last_dim(&scores).unwrap();
            scores.inplace_op1(&Softmax).unwrap();
            let ours = scores;
            let difference = largest_difference(ours, candles);
            assert!(difference < 1e-6, "{difference}");
        }
    }

    #[test]
    fn layer_norm_gives_candles_rows() {
        use candle_core::{DType, Device};
        let width = 2 * LANES + 5;
        let wave = |count: usize, scale: f32, shift: f32| {
            let values: Vec<f32> = (0..count)
                .map(|i| ((i * 29 % 17) as f32 - 8.0) * scale + shift)
                .collect();
            Tensor::from_vec(values, count, &Device::Cpu).unwrap()
        };
        let (weight, bias) = (wave(width, 0.1, 1.0), wave(width, 0.05, 0.0));
        let tensors = std::collections::HashMap::from([
            ("weight".to_owned(), weight.clone()),
            ("bias".to_owned(), bias.clone()),
        ]);
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let norm = LayerNorm::load(width, 1e-12, vb).unwrap();
        // Rows with a mean far from zero beside their spread, as a residual sum can have.
        let rows = wave(3 * width, 0.7, 40.0).reshape((3, width)).unwrap();
        let candles = candle_nn::ops::layer_norm(&rows, &weight, &bias, 1e-12).unwrap();
        let ours = norm.forward(rows).unwrap();
        let difference = largest_difference(ours, candles);
        assert!(difference < 1e-4, "{difference}");
    }

    #[test]
    fn erf_is_within_a_millionth_of_its_tabled_values() {
        // Abramowitz and Stegun, table 7.1.
        for (x, expected) in [
            (0.0_f32, 0.0_f64),
            (0.1, 0.112_462_916),
            (0.5, 0.520_499_878),
            (1.0, 0.842_700_793),
            (1.5, 0.966_105_146),
            (2.0, 0.995_322_265),
            (3.0, 0.999_977_910),
            (6.0, 1.0),
        ] {
            let (at, at_minus) = (f64::from(erf(x)), f64::from(erf(-x)));
            assert!((at - expected).abs() < 1e-6, "erf({x}) = {at}");
            assert!((at_minus + expected).abs() < 1e-6, "erf(-{x}) = {at_minus}");
        }
    }
}
